import type { BatchExportRow } from '../../../../projections/exports';
import { compileToSqlite, type CompiledColumn, type SqliteParams } from '../../../exports/hogql';
import { LINE_COLUMNS } from './line-rows';
export { keysetBefore, keysetOf } from './line-rows';

export interface RunWindow {
  projectId: number;
  start: string;
  end: string;
  /** Backfills select by event time, scheduled runs by ingestion time (compat §5). */
  isBackfill: boolean;
}

interface QueryBase {
  countSql: string;
  /** Positional parameters (then, for hogql queries, the named ones). */
  params: (string | number)[];
}

/**
 * Standard exports read in keyset pages (`.all()` per page measured ~20% cheaper per row than
 * stepping an iterator): `pageSql` takes `pageParams`, then the previous page's last (time, uuid)
 * and the page size. Rows are in `recordFromRow`'s column order, then the keyset.
 */
export interface PagedQuery extends QueryBase {
  kind: 'pages';
  pageSql: string;
  /** Parameters of `pageSql` before the keyset and the page size: project, interval end, filters. */
  pageParams: (string | number)[];
  /** The same pages with the JSONLines fields encoded by SQLite (`lineFromRow`'s columns). */
  linesSql: string;
  /** Where the first page starts: the keyset before (start, any uuid). */
  start: string;
}

/** recordFromRow's columns; every page row ends with the keyset (time, uuid). */
const STANDARD_COLUMNS = 'e.uuid, e.event, e.properties, e.distinct_id, e.project_id, e.timestamp, e.received_at, e.person_id, e.elements_chain';


/** A hogql_query export: one statement to iterate, its columns after the identity ones. */
export interface HogQLSourceQuery extends QueryBase {
  kind: 'hogql';
  sql: string;
  named: SqliteParams;
  columns: readonly CompiledColumn[];
}

export type SourceQuery = PagedQuery | HogQLSourceQuery;

/** The page parameters with another end, for reading a time slice of the run. */
export const pageParamsUntil = (query: PagedQuery, end: string): (string | number)[] => [query.pageParams[0], end, ...query.pageParams.slice(2)];

/**
 * The analytics table under the names HogQL compiles to (the exported fields). SQLite flattens
 * this subquery, so the range filter still runs on the time index and rows come out in index
 * order. A hogql_query may refer to `person_properties`, hence the join; the standard export
 * reads person properties through a per-run cache instead (see PersonProperties), which is far
 * cheaper than joining every row.
 */
const eventsAsExported = (timeColumn: string, extra: string, withPerson: boolean) => `
  SELECT e.uuid AS uuid, e.event AS event, e.properties AS properties, e.distinct_id AS distinct_id,
    e.project_id AS team_id, e.timestamp AS timestamp, e.received_at AS created_at, e.person_id AS person_id,
    ${withPerson ? 'p.properties' : 'NULL'} AS person_properties, e.elements_chain AS elements_chain
  FROM events e${withPerson ? ' LEFT JOIN persons p ON p.uuid = e.person_id' : ''}
  WHERE e.project_id = ? AND e.${timeColumn} >= ? AND e.${timeColumn} < ?${extra}`;

/** Identity columns every hogql row carries before the query's own columns. */
export const HOGQL_IDENTITY_COLUMNS = 'uuid AS x_uuid, event AS x_event, distinct_id AS x_distinct_id, team_id AS x_team_id, timestamp AS x_timestamp, created_at AS x_created_at';

const eventList = (config: Record<string, unknown>, key: string): string[] => {
  const value = config[key];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
};

/**
 * Builds the run's SELECT. User text never reaches the SQL: event filters are bound as JSON
 * arrays, the hogql query's values through its binder, and identifiers are fixed here.
 */
export function sourceQuery(exp: BatchExportRow, window: RunWindow): SourceQuery {
  const timeColumn = window.isBackfill ? 'timestamp' : 'received_at';
  const params: (string | number)[] = [window.projectId, window.start, window.end];
  let extra = '';
  const include = eventList(exp.destination_config, 'include_events');
  const exclude = eventList(exp.destination_config, 'exclude_events');
  if (include.length > 0) {
    extra += ' AND e.event IN (SELECT value FROM json_each(?))';
    params.push(JSON.stringify(include));
  }
  if (exclude.length > 0) {
    extra += ' AND e.event NOT IN (SELECT value FROM json_each(?))';
    params.push(JSON.stringify(exclude));
  }
  const countSql = `SELECT count(*) AS n FROM (${eventsAsExported(timeColumn, extra, false)})`;
  if (exp.hogql_query === null) {
    // Read in the time index's order; SQLite sorts only each run of equal times by uuid. The
    // keyset alone bounds each page from below (it starts before (start, any uuid)): with
    // `time >= start` beside it, SQLite began every page's index scan at the interval start.
    const page = (columns: string) =>
      `SELECT ${columns}, e.${timeColumn}, e.uuid
       FROM events e WHERE e.project_id = ? AND e.${timeColumn} < ?${extra}
         AND (e.${timeColumn}, e.uuid) > (?, ?)
       ORDER BY e.${timeColumn}, e.uuid LIMIT ?`;
    const pageSql = page(STANDARD_COLUMNS);
    const linesSql = page(LINE_COLUMNS);
    const [projectId, start, ...rest] = params;
    return { kind: 'pages', pageSql, linesSql, countSql, params, pageParams: [projectId, ...rest], start: start as string };
  }
  const compiled = compileToSqlite(exp.hogql_query);
  const where = compiled.where === null ? '' : ` WHERE ${compiled.where}`;
  const from = `FROM (${eventsAsExported(timeColumn, extra, true)})`;
  return {
    kind: 'hogql',
    // The standard export's order, read off the same time index.
    sql: `SELECT ${HOGQL_IDENTITY_COLUMNS}, ${compiled.select} ${from}${where} ORDER BY ${window.isBackfill ? 'timestamp' : 'created_at'}, uuid`,
    countSql: `SELECT count(*) AS n ${from}${where}`,
    params,
    named: compiled.params,
    columns: compiled.columns,
  };
}
