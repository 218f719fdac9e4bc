import type { BatchExportRow } from '../../../../projections/exports';
import type { SqlValue } from '../../../store/read-model-projection';
import type { SqlDialect } from '../../../store/sql';
import { compileToPostgres, type CompiledColumn } from '../../../exports/hogql';

export interface RunWindow {
  projectId: number;
  start: string;
  end: string;
  /** Backfills select by event time, scheduled runs by ingestion time (compat §5). */
  isBackfill: boolean;
}

/** Standard rows in keyset pages: `pageSql` takes `params`, the last (time, uuid) and the page size. */
export interface PagedQuery {
  kind: 'pages';
  countSql: string;
  countParams: SqlValue[];
  pageSql: string;
  params: SqlValue[];
  start: string;
}

/** A hogql_query export: one statement read through a cursor, its columns after the identity ones. */
export interface HogQLSourceQuery {
  kind: 'hogql';
  countSql: string;
  countParams: SqlValue[];
  sql: string;
  params: SqlValue[];
  columns: readonly CompiledColumn[];
}

export type SourceQuery = PagedQuery | HogQLSourceQuery;

/** recordFromRow's columns, then the keyset (time, uuid). */
const STANDARD_COLUMNS = 'e.uuid, e.event, e.properties, e.distinct_id, e.project_id, e.timestamp, e.received_at, e.person_id, e.elements_chain';

/** Identity columns every hogql row carries before the query's own columns. */
const HOGQL_IDENTITY_COLUMNS = 'uuid AS x_uuid, event AS x_event, distinct_id AS x_distinct_id, team_id AS x_team_id, timestamp AS x_timestamp, created_at AS x_created_at';

const eventList = (config: Record<string, unknown>, key: string): string[] => {
  const value = config[key];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
};

/**
 * Replaces the compiled query's `@hogql_pN` parameters and the `?` ones by `?` in text order,
 * and returns the values in that order. Quoted literals and identifiers are left as they are.
 */
function positional(sql: string, outer: readonly SqlValue[], named: Readonly<Record<string, SqlValue>>): { sql: string; params: SqlValue[] } {
  const params: SqlValue[] = [];
  let next = 0;
  const text = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?|@(hogql_p\d+)/g, (match, name: string | undefined) => {
    if (match.startsWith("'") || match.startsWith('"')) return match;
    params.push(name === undefined ? outer[next++] : named[name]);
    return '?';
  });
  return { sql: text, params };
}

/**
 * The run's statements. User text never reaches the SQL: event filters are bound as JSON arrays,
 * the hogql query's values through its binder, and identifiers are fixed here.
 */
export function sourceQuery(dialect: SqlDialect, exp: BatchExportRow, window: RunWindow): SourceQuery {
  const timeColumn = window.isBackfill ? 'timestamp' : 'received_at';
  const filters: SqlValue[] = [];
  let extra = '';
  const include = eventList(exp.destination_config, 'include_events');
  const exclude = eventList(exp.destination_config, 'exclude_events');
  if (include.length > 0) {
    extra += ` AND ${dialect.inJsonArray('e.event', 'text')}`;
    filters.push(JSON.stringify(include));
  }
  if (exclude.length > 0) {
    extra += ` AND NOT ${dialect.inJsonArray('e.event', 'text')}`;
    filters.push(JSON.stringify(exclude));
  }
  const range = `e.project_id = ? AND e.${timeColumn} >= ? AND e.${timeColumn} < ?${extra}`;
  const rangeParams = [window.projectId, window.start, window.end, ...filters];
  if (exp.hogql_query === null) {
    return {
      kind: 'pages',
      countSql: `SELECT count(*) AS n FROM events e WHERE ${range}`,
      countParams: rangeParams,
      // The keyset alone bounds each page from below, as on SQLite; the time index gives the time order
      // and PostgreSQL sorts each run of equal times by uuid (an incremental sort).
      pageSql: `SELECT ${STANDARD_COLUMNS}, e.${timeColumn} AS keyset_time, e.uuid AS keyset_uuid
        FROM events e WHERE e.project_id = ? AND e.${timeColumn} < ?${extra} AND (e.${timeColumn}, e.uuid) > (?, ?)
        ORDER BY e.${timeColumn}, e.uuid LIMIT ?`,
      params: [window.projectId, window.end, ...filters],
      start: window.start,
    };
  }
  const compiled = compileToPostgres(exp.hogql_query);
  const where = compiled.where === null ? '' : ` WHERE ${compiled.where}`;
  const from = `FROM (
    SELECT e.uuid AS uuid, e.event AS event, e.properties AS properties, e.distinct_id AS distinct_id,
      e.project_id AS team_id, e.timestamp AS timestamp, e.received_at AS created_at, e.person_id AS person_id,
      p.properties AS person_properties, e.elements_chain AS elements_chain
    FROM events e LEFT JOIN persons p ON p.uuid = e.person_id
    WHERE ${range}) exported`;
  const rows = positional(
    `SELECT ${HOGQL_IDENTITY_COLUMNS}, ${compiled.select} ${from}${where} ORDER BY ${window.isBackfill ? 'timestamp' : 'created_at'}, uuid`,
    rangeParams,
    compiled.params,
  );
  const count = positional(`SELECT count(*) AS n ${from}${where}`, rangeParams, compiled.params);
  return { kind: 'hogql', countSql: count.sql, countParams: count.params, sql: rows.sql, params: rows.params, columns: compiled.columns };
}
