import type { BatchExportQuery } from './ast';
import { ClickHouseLiteralBinder, ClickHouseParamBinder, PostgresBinder, SqliteBinder } from './binder';
import { clickHouseDialect, clickHouseExportDialect } from './clickhouse-dialect';
import { compileWith } from './compile';
import type { CompiledQuery } from './compile';
import { postgresDialect } from './postgres-dialect';
import { parseHogQL } from './query';
import { sqliteDialect } from './sqlite-dialect';

/** Named parameters for better-sqlite3: pass `params` as the object argument of `.all()`. */
export type SqliteParams = Record<string, string | number | bigint>;

/**
 * Compiles for SQLite. The caller embeds the fragments and adds its own filters, e.g.
 * `SELECT ${select} FROM events WHERE team_id = ? AND <time range> AND ${where ?? '1'} ORDER BY ...`
 * and runs it with `stmt.all(teamId, ..., params)`.
 */
export function compileToSqlite(query: string | BatchExportQuery): CompiledQuery<SqliteParams> {
  return compileWith(resolved(query), sqliteDialect, new SqliteBinder());
}

/**
 * Compiles for PostgreSQL: the same fragments with `@hogql_pN` named parameters (values in
 * `params`), which the caller replaces by its driver's placeholders.
 */
export function compileToPostgres(query: string | BatchExportQuery): CompiledQuery<SqliteParams> {
  return compileWith(resolved(query), postgresDialect, new PostgresBinder());
}

export interface ClickHouseOptions {
  /**
   * `inline` (default): values become escaped literals and `params` is empty; the only form
   * ClickHouse 18.16 accepts. `query`: `{hogql_p0:String}` placeholders, sent by the client as
   * `param_hogql_p0`; for ClickHouse 19.x and later.
   */
  readonly parameters?: 'inline' | 'query';
  /**
   * `value` (default): a property column is its value as text. `json`: its JSON text, decoded by the
   * reader (CompiledColumn.decode), so exported values have SQLite's types; the export source's choice.
   */
  readonly propertyColumns?: 'value' | 'json';
}

export function compileToClickHouse(
  query: string | BatchExportQuery,
  options: ClickHouseOptions = {},
): CompiledQuery<Record<string, string>> {
  const binder = options.parameters === 'query' ? new ClickHouseParamBinder() : new ClickHouseLiteralBinder();
  return compileWith(resolved(query), options.propertyColumns === 'json' ? clickHouseExportDialect : clickHouseDialect, binder);
}

function resolved(query: string | BatchExportQuery): BatchExportQuery {
  return typeof query === 'string' ? parseHogQL(query) : query;
}
