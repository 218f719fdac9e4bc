/**
 * The safe HogQL subset for batch exports: `SELECT <expr> [AS <alias>], ... FROM events
 * [WHERE <condition>]`, validated like PostHog's BatchExportSerializer, compiled to SQLite,
 * PostgreSQL or ClickHouse 18.16 without ever splicing user text into SQL. See README.md in this folder.
 */
export { parseHogQL } from './query';
export { deriveSchema } from './schema';
export type { BatchExportSchema, BatchExportSchemaField } from './schema';
export { compileToClickHouse, compileToPostgres, compileToSqlite } from './dialects';
export { UNREADABLE_PROPERTY } from './clickhouse-dialect';
export type { ClickHouseOptions, SqliteParams } from './dialects';
export type { CompiledColumn, CompiledQuery } from './compile';
export { printQuery } from './hogql-print';
export { HogQLError } from './errors';
export type { HogQLErrorCode } from './errors';
export { EXPORTED_FIELDS, FUNCTIONS } from './catalog';
export type { BatchExportQuery, EventField, FunctionName } from './ast';
export { COLUMN_PREFIX, PARAM_PREFIX } from './binder';
