import type { ExportRecord, RawJsonFields } from '../destinations';
import type { CompiledColumn } from '../hogql';

type Json = Record<string, unknown>;

const parseObject = (text: string | null): Json | null => (text === null ? null : (JSON.parse(text) as Json));

/**
 * One analytics row as an export record. The JSON columns stay text: writers that only
 * re-serialise (JSONLines, Parquet, Postgres) splice `raw` in as is, and the objects are parsed
 * on first access, for the destinations that look inside (HTTP).
 */
class StoredRecord implements ExportRecord {
  // Parsed on first access; plain fields (not a cache object) to keep one allocation per row.
  private parsedProperties: Json | undefined = undefined;
  private parsedPerson: Json | null | undefined = undefined;
  private parsedSet: Json | null | undefined = undefined;
  private parsedSetOnce: Json | null | undefined = undefined;

  constructor(
    readonly uuid: string,
    readonly event: string,
    readonly distinct_id: string,
    readonly team_id: number,
    readonly timestamp: string,
    readonly created_at: string,
    readonly person_id: string | null,
    readonly elements_chain: string | null,
    readonly raw: RawJsonFields,
  ) {}

  get properties(): Json {
    return (this.parsedProperties ??= JSON.parse(this.raw.properties) as Json);
  }
  get person_properties(): Json | null {
    if (this.parsedPerson === undefined) this.parsedPerson = parseObject(this.raw.person_properties);
    return this.parsedPerson;
  }
  get set(): Json | null {
    if (this.parsedSet === undefined) this.parsedSet = parseObject(this.raw.set);
    return this.parsedSet;
  }
  get set_once(): Json | null {
    if (this.parsedSetOnce === undefined) this.parsedSetOnce = parseObject(this.raw.set_once);
    return this.parsedSetOnce;
  }
}

const NO_PERSON_OPS = { set: null, setOnce: null };
const objectJson = (v: unknown): string | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? JSON.stringify(v) : null);

/**
 * `set` / `set_once` are the event's `$set` / `$set_once`. Few events carry them, so the text is
 * searched first (a plain substring search) and parsed only when it may hold one.
 */
export function personOperations(properties: string): { set: string | null; setOnce: string | null } {
  if (properties.indexOf('"$set') === -1) return NO_PERSON_OPS;
  const parsed = JSON.parse(properties) as Json;
  return { set: objectJson(parsed.$set), setOnce: objectJson(parsed.$set_once) };
}

/** Index of person_id in a standard row (uuid, event, properties, distinct_id, team_id, timestamp, created_at, person_id, elements_chain). */
export const PERSON_ID = 7;

/** A standard row (raw mode: an array in that column order); person properties from the cache. */
export function recordFromRow(r: unknown[], personProperties: (personId: string | null) => string | null): ExportRecord {
  const properties = r[2] as string;
  const personId = r[PERSON_ID] as string | null;
  const chain = r[8] as string | null;
  const ops = personOperations(properties);
  return new StoredRecord(
    r[0] as string,
    r[1] as string,
    r[3] as string,
    r[4] as number,
    r[5] as string,
    r[6] as string,
    personId,
    chain === '' ? null : chain,
    { properties, person_properties: personProperties(personId), set: ops.set, set_once: ops.setOnce },
  );
}

/**
 * A property read as its JSON text (CompiledColumn.decode `jsonScalar`), as SQLite's json_extract
 * gives it: strings and numbers as themselves, true/false as 1/0, objects and arrays as their text.
 */
function jsonScalar(text: string): unknown {
  if (text.startsWith('{') || text.startsWith('[')) return text;
  const value: unknown = JSON.parse(text);
  return typeof value === 'boolean' ? Number(value) : value;
}

const decoders: Record<NonNullable<CompiledColumn['decode']>, (text: string) => unknown> = {
  // A whole JSON field comes back as JSON text; it is exported as the object.
  json: (text) => JSON.parse(text),
  jsonScalar,
};

/** A hogql column's exported value from its SQL value. */
export function columnValue(column: CompiledColumn): (value: unknown) => unknown {
  if (column.decode === null) return (value) => value;
  const decoder = decoders[column.decode];
  return (value) => (typeof value === 'string' ? decoder(value) : value);
}

/**
 * A row of a hogql_query export: identity columns (kept so every destination works and re-runs
 * stay idempotent on uuid), then the query's columns, which become the record's `properties`
 * keyed by alias. The other JSON fields are not exported in this mode.
 */
export function hogqlRecordMapper(columns: readonly CompiledColumn[]): (r: unknown[]) => ExportRecord {
  const decode = columns.map(columnValue);
  return (r) => {
    const properties: Json = {};
    for (let i = 0; i < columns.length; i++) properties[columns[i].alias] = decode[i](r[6 + i]);
    return {
      uuid: r[0] as string,
      event: r[1] as string,
      distinct_id: r[2] as string,
      team_id: r[3] as number,
      timestamp: r[4] as string,
      created_at: r[5] as string,
      properties,
      person_id: null,
      person_properties: null,
      set: null,
      set_once: null,
      elements_chain: null,
    };
  };
}

/** A hogql query's rows as records, in batches of `batchSize`; `check` runs before each batch is handed on. */
export async function* hogqlBatches(
  rows: Iterable<unknown[]> | AsyncIterable<unknown[]>,
  columns: readonly CompiledColumn[],
  batchSize: number,
  check: () => void,
): AsyncGenerator<ExportRecord[]> {
  const map = hogqlRecordMapper(columns);
  let batch: ExportRecord[] = [];
  for await (const row of rows) {
    batch.push(map(row));
    if (batch.length >= batchSize) {
      check();
      yield batch;
      batch = [];
    }
  }
  check();
  if (batch.length > 0) yield batch;
}
