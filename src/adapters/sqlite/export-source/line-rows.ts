// records.ts itself imports only types, so the reader threads still load little.
import { personOperations } from '../../../exports/worker/records';

/**
 * JSONLines rows encoded mostly by SQLite. Reading a column into JavaScript costs about as much
 * as encoding it, so the plain fields arrive already JSON-encoded in two `json_object`s (their
 * escaping is JSON.stringify's), and JavaScript only splices in the JSON text the store already
 * holds. The result is byte for byte `jsonLine(recordFromRow(...))` (tested), in EXPORTED_FIELDS
 * order.
 */
export const LINE_COLUMNS = [
  `json_object('uuid', e.uuid, 'event', e.event)`,
  'e.properties',
  `json_object('distinct_id', e.distinct_id, 'team_id', e.project_id, 'timestamp', e.timestamp, 'created_at', e.received_at, 'person_id', e.person_id)`,
  'e.person_id',
  `NULLIF(e.elements_chain, '')`,
].join(', ');


/** One row of LINE_COLUMNS as its JSONLines line, newline included. */
export function lineFromRow(r: readonly unknown[], personProperties: (personId: string | null) => string | null): string {
  const head = r[0] as string;
  const properties = r[1] as string;
  const tail = r[2] as string;
  const chain = r[4] as string | null;
  const ops = personOperations(properties);
  return (
    head.slice(0, -1) + ',"properties":' + properties + ',' + tail.slice(1, -1) +
    ',"person_properties":' + (personProperties(r[3] as string | null) ?? 'null') +
    ',"set":' + (ops.set ?? 'null') + ',"set_once":' + (ops.setOnce ?? 'null') +
    ',"elements_chain":' + (chain === null ? 'null' : JSON.stringify(chain)) + '}\n'
  );
}

/** The keyset (time, uuid) of a page row: every page statement ends its columns with it. */
export function keysetOf(row: readonly unknown[]): [string, string] {
  return [row[row.length - 2] as string, row[row.length - 1] as string];
}

/** The keyset before every row of an interval starting at `start` (no uuid is empty). */
export const keysetBefore = (start: string): [string, string] => [start, ''];
