import type { BatchExportRow } from '../../../../projections/exports';
import { compileToClickHouse, type CompiledColumn } from '../../../exports/hogql';
import { dedupedEvents } from '../deduped-events';
import type { Keyset, PageRange } from './page-ranges';
import { EVENTS_BY_RECEIVED_TABLE, EVENTS_BY_TIME_TABLE, type EventRowTable } from '../schema';
import { int, str, strList } from '../sql-literal';
import { toMs } from '../time';

export interface RunWindow {
  projectId: number;
  start: string;
  end: string;
  /** Backfills select by event time, scheduled runs by ingestion time (compat §5). */
  isBackfill: boolean;
  /** Rows stored at or below this log position only: the run's stable set (see index.ts). */
  position: number;
}

/** The run's statements over the deduped events, each a function of the keyset after which a page starts. */
export interface RunQuery {
  /** The window's rows per span of `spanMs` of its time column (`span`, `rows`), in time order. */
  spansSql(spanMs: number): string;
  /** The page after `after` (null: the range's first) within `range`, `limit` rows, ordered by (time, uuid). */
  pageSql(after: Keyset | null, limit: number, range: PageRange): string;
}

/** recordFromRow's columns as stored (times in ms, the project as project_id): the reader converts them. */
const STANDARD_COLUMNS = 'uuid, event, properties, distinct_id, project_id, timestamp, received_at, person_id, elements_chain';

const eventList = (config: Record<string, unknown>, key: string): string[] => {
  const value = config[key];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
};

/**
 * The copy whose sorting key leads with the run's time (schema.ts), so that a run's statements read
 * its window's rows only: 18.16 reads every row a condition's key range holds before sorting.
 */
const tableFor = (w: RunWindow): EventRowTable => (w.isBackfill ? EVENTS_BY_TIME_TABLE : EVENTS_BY_RECEIVED_TABLE);

/** The window's condition on the stored columns: range, stable set, include/exclude (as the SQLite source). */
function windowCondition(exp: BatchExportRow, w: RunWindow, timeColumn: string): string {
  const parts = [`${timeColumn} >= ${int(toMs(w.start))}`, `${timeColumn} < ${int(toMs(w.end))}`, `_position <= ${int(w.position)}`];
  const include = eventList(exp.destination_config, 'include_events');
  const exclude = eventList(exp.destination_config, 'exclude_events');
  if (include.length > 0) parts.push(`event IN ${strList(include)}`);
  if (exclude.length > 0) parts.push(`event NOT IN ${strList(exclude)}`);
  return parts.join(' AND ');
}

/** Rows after the keyset (time, uuid), spelled out: tuple comparison is not what 18.16's index uses. */
const afterKeyset = (timeColumn: string, after: Keyset | null) =>
  after === null ? '1' : `(${timeColumn} > ${int(after[0])} OR (${timeColumn} = ${int(after[0])} AND uuid > ${str(after[1])}))`;

/** Rows within the range, as bounds on the time column the copy's key leads with. */
const inRange = (timeColumn: string, range: PageRange) =>
  [range.from === null ? null : `${timeColumn} >= ${int(range.from)}`, range.to === null ? null : `${timeColumn} < ${int(range.to)}`].filter((c) => c !== null).join(' AND ') || '1';

/** Rows per span of the time column; floor, not intDiv (which truncates before 1970). */
const spansOf = (timeColumn: string, source: string, spanMs: number) =>
  `SELECT toInt64(floor(${timeColumn} / ${int(spanMs)})) AS span, count() AS rows FROM ${source} GROUP BY span ORDER BY span`;

/**
 * The standard export: the stored columns in keyset pages, time then uuid (bytes, as SQLite's
 * BINARY). Its spans are read under FINAL with the pages' condition, so they add up to its count.
 */
export function standardQuery(exp: BatchExportRow, w: RunWindow): RunQuery {
  const time = w.isBackfill ? 'timestamp' : 'received_at';
  const where = windowCondition(exp, w, time);
  return {
    spansSql: (spanMs) => spansOf(time, dedupedEvents(w.projectId, where, tableFor(w)), spanMs),
    pageSql: (after, limit, range) =>
      `SELECT ${STANDARD_COLUMNS} FROM ${dedupedEvents(w.projectId, `${where} AND ${inRange(time, range)} AND ${afterKeyset(time, after)}`, tableFor(w))}
       ORDER BY ${time}, uuid LIMIT ${int(limit)}`,
  };
}

/**
 * Canonical ISO text (toISOString's) of epoch milliseconds, with what 18.16 has: HogQL compares
 * and selects `timestamp` / `created_at` as the text the embedded store holds. Years 1970–2105
 * only (DateTime's range); the identity columns are converted from the milliseconds instead.
 */
const isoText = (ms: string) =>
  `concat(replaceOne(toString(toDateTime(intDiv(${ms}, 1000), 'UTC')), ' ', 'T'), '.', substring(toString(1000 + ${ms} % 1000), 2, 3), 'Z')`;

/** A hogql_query export: its statements, the compiled columns, and the run's person table. */
export interface HogQLRunQuery extends RunQuery {
  /** The rows the query keeps (its own filter applied): the spans count the window's events. */
  countSql: string;
  /** The run's rows' person ids, for the run's person table. */
  personIdsSql: string;
  columns: readonly CompiledColumn[];
  /** The compiled columns with no row: DESCRIBE gives their types. */
  typesSql: string;
}

/**
 * The events under the names HogQL compiles to, person properties joined from `personTable`
 * (person_key, person_properties), filled by the source for the run. The stored times are renamed
 * in the innermost SELECT: an alias named like the column it is computed from is a cycle there.
 */
function exportedEvents(projectId: number, where: string, table: EventRowTable, personTable: string): string {
  const stored = `SELECT uuid, event, properties, distinct_id, project_id AS team_id, timestamp AS event_ms, received_at AS received_ms,
      person_id, elements_chain, ifNull(person_id, '') AS person_key
    FROM ${dedupedEvents(projectId, where, table)}`;
  return `(SELECT uuid, event, properties, distinct_id, team_id, ${isoText('event_ms')} AS timestamp, ${isoText('received_ms')} AS created_at,
      person_id, person_properties, elements_chain, event_ms, received_ms
    FROM (${stored}) AS stored ANY LEFT JOIN ${personTable} AS persons USING person_key)`;
}

/** Identity columns every hogql row carries before the query's own (times as ms, converted by the reader). */
const IDENTITY = 'uuid AS x_uuid, event AS x_event, distinct_id AS x_distinct_id, team_id AS x_team_id, event_ms AS x_event_ms, received_ms AS x_received_ms';

export function hogqlQuery(exp: BatchExportRow & { hogql_query: string }, w: RunWindow, personTable: string): HogQLRunQuery {
  const time = w.isBackfill ? 'event_ms' : 'received_ms';
  const stored = w.isBackfill ? 'timestamp' : 'received_at';
  const where = windowCondition(exp, w, stored);
  const compiled = compileToClickHouse(exp.hogql_query, { propertyColumns: 'json' });
  const from = exportedEvents(w.projectId, where, tableFor(w), personTable);
  const filter = compiled.where ?? '1';
  return {
    countSql: `SELECT count() AS n FROM ${from} WHERE ${filter}`,
    spansSql: (spanMs) => spansOf(stored, dedupedEvents(w.projectId, where, tableFor(w)), spanMs),
    // The range and the keyset narrow the stored rows, under the join: a condition on the outer
    // names would be applied after every row of the window was read and joined.
    pageSql: (after, limit, range) =>
      `SELECT ${IDENTITY}, ${compiled.select}
       FROM ${exportedEvents(w.projectId, `${where} AND ${inRange(stored, range)} AND ${afterKeyset(stored, after)}`, tableFor(w), personTable)}
       WHERE ${filter} ORDER BY ${time}, uuid LIMIT ${int(limit)}`,
    personIdsSql: `SELECT DISTINCT person_id FROM ${dedupedEvents(w.projectId, where, tableFor(w))} WHERE isNotNull(person_id)`,
    typesSql: `DESCRIBE TABLE (SELECT ${compiled.select} FROM ${from} WHERE 0)`,
    columns: compiled.columns,
  };
}
