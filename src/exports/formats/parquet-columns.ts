import { RecordBatch, Struct, Table, makeData, tableToIPC, vectorFromArray, Utf8 } from 'apache-arrow';
import type { Data, Int64, TimestampMicrosecond } from 'apache-arrow';
import type { ExportRecord } from '../destinations/destination';
import { Int64Column } from './int64-column';
import { PARQUET_SCHEMA, TEAM_ID_TYPE, TIMESTAMP_TYPE } from './parquet-schema';
import { isoToMicros } from './timestamps';

const json = (value: Record<string, unknown> | null | undefined): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value);

const utf8 = (values: (string | null)[]): Data => vectorFromArray(values, new Utf8()).data[0];

function int64(column: Int64Column, type: Int64): Data<Int64> {
  const { values, nullBitmap, nullCount, length } = column.take();
  return makeData({ type, length, nullCount, nullBitmap, data: values });
}

function timestamp(column: Int64Column, type: TimestampMicrosecond): Data<TimestampMicrosecond> {
  const { values, nullBitmap, nullCount, length } = column.take();
  return makeData({ type, length, nullCount, nullBitmap, data: values });
}

/** Rows of one row group, kept column by column as they arrive. */
export class ColumnBuffer {
  private uuid: string[] = [];
  private event: string[] = [];
  private properties: (string | null)[] = [];
  private distinctId: string[] = [];
  private teamId = new Int64Column();
  private timestamp = new Int64Column();
  private createdAt = new Int64Column();
  private personId: (string | null)[] = [];
  private personProperties: (string | null)[] = [];
  private set: (string | null)[] = [];
  private setOnce: (string | null)[] = [];
  private elementsChain: (string | null)[] = [];
  /** Rough uncompressed size, used to estimate file size before the row group is flushed. */
  rawBytes = 0;

  get length(): number {
    return this.uuid.length;
  }

  append(r: ExportRecord): void {
    const raw = r.raw;
    const properties = raw ? raw.properties : json(r.properties);
    const personProperties = raw ? raw.person_properties : json(r.person_properties);
    const set = raw ? raw.set : json(r.set);
    const setOnce = raw ? raw.set_once : json(r.set_once);
    const elementsChain = r.elements_chain ?? null;
    this.uuid.push(r.uuid);
    this.event.push(r.event);
    this.properties.push(properties);
    this.distinctId.push(r.distinct_id);
    this.teamId.push(r.team_id ?? null);
    this.timestamp.push(isoToMicros(r.timestamp));
    this.createdAt.push(isoToMicros(r.created_at));
    this.personId.push(r.person_id ?? null);
    this.personProperties.push(personProperties);
    this.set.push(set);
    this.setOnce.push(setOnce);
    this.elementsChain.push(elementsChain);
    this.rawBytes +=
      60 + r.uuid.length + r.event.length + r.distinct_id.length + (properties?.length ?? 0) +
      (personProperties?.length ?? 0) + (set?.length ?? 0) + (setOnce?.length ?? 0) +
      (elementsChain?.length ?? 0) + (r.person_id?.length ?? 0);
  }

  /** The buffered rows as an Arrow IPC stream (one record batch); the buffer starts empty again. */
  takeIpc(): Uint8Array {
    const fields = PARQUET_SCHEMA.fields;
    const children = [
      utf8(this.uuid),
      utf8(this.event),
      utf8(this.properties),
      utf8(this.distinctId),
      int64(this.teamId, TEAM_ID_TYPE),
      timestamp(this.timestamp, TIMESTAMP_TYPE),
      timestamp(this.createdAt, TIMESTAMP_TYPE),
      utf8(this.personId),
      utf8(this.personProperties),
      utf8(this.set),
      utf8(this.setOnce),
      utf8(this.elementsChain),
    ];
    const length = this.uuid.length;
    const struct = makeData({ type: new Struct(fields), length, nullCount: 0, children });
    const ipc = tableToIPC(new Table(new RecordBatch(PARQUET_SCHEMA, struct)), 'stream');
    this.reset();
    return ipc;
  }

  private reset(): void {
    this.uuid = [];
    this.event = [];
    this.properties = [];
    this.distinctId = [];
    this.personId = [];
    this.personProperties = [];
    this.set = [];
    this.setOnce = [];
    this.elementsChain = [];
    this.rawBytes = 0;
  }
}
