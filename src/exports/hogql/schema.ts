import type { BatchExportQuery } from './ast';
import { printQuery } from './hogql-print';
import { parseHogQL } from './query';
import { PostHogPrinter } from './posthog-print';

export interface BatchExportSchemaField {
  /** The column as PostHog's HogQL printer writes it for ClickHouse, `%(hogql_val_N)s` placeholders included. */
  readonly expression: string;
  readonly alias: string;
}

/** PostHog's `BatchExport.schema`, derived from `hogql_query` when an export is written. */
export interface BatchExportSchema {
  readonly fields: BatchExportSchemaField[];
  /** Placeholder name to value, for the placeholders in `fields` (select list only, as in PostHog). */
  readonly values: Record<string, string>;
  /** The canonical re-print of the query (see `printQuery`). */
  readonly hogql_query: string;
}

/**
 * Validates `hogql_query` and builds the schema to store on the export; throws HogQLError.
 * Accepts an already parsed query so a caller that compiles too parses only once.
 */
export function deriveSchema(query: string | BatchExportQuery): BatchExportSchema {
  const parsed = typeof query === 'string' ? parseHogQL(query) : query;
  const printer = new PostHogPrinter();
  const fields = parsed.columns.map((column) => ({ expression: printer.print(column.expr), alias: column.alias }));
  return { fields, values: { ...printer.values }, hogql_query: printQuery(parsed.parsed) };
}
