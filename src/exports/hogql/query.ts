import type { BatchExportQuery } from './ast';
import { parseError } from './errors';
import { parseQuery } from './parser';
import { resolveQuery } from './resolve';

/** Parses, validates and resolves a batch export's `hogql_query`; throws HogQLError. */
export function parseHogQL(query: string): BatchExportQuery {
  // The value usually comes straight from a JSON request body.
  if (typeof query !== 'string') throw parseError('hogql_query must be a string', null);
  return resolveQuery(parseQuery(query));
}
