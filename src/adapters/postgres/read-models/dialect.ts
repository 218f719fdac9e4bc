import type { SqlDialect } from '../../../store/sql';

const quoteText = (s: string) => `'${s.replaceAll("'", "''")}'`;

export const postgresDialect: SqlDialect = {
  name: 'postgres',
  inJsonArray: (expr, kind) =>
    kind === 'integer'
      ? `${expr} IN (SELECT (jsonb_array_elements_text(?::jsonb))::bigint)`
      : `${expr} IN (SELECT jsonb_array_elements_text(?::jsonb))`,
  jsonText: (column, key) => `(${column}::jsonb ->> ${quoteText(key)})`,
  // A JSON path that selects the key only when it holds a string: one parse per row, null otherwise.
  jsonString: (column) => `(jsonb_path_query_first(${column}::jsonb, CAST(? AS jsonpath)) #>> '{}')`,
  jsonStringKey: (key) => `$."${key.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}" ? (@.type() == "string")`,
  containsText: (haystack, needle) => `strpos(${haystack}, ${needle}) > 0`,
  jsonArrayAgg: (expr, orderBy) => `coalesce(json_agg(${expr} ORDER BY ${orderBy})::text, '[]')`,
  likeIgnoringCase: (expr, pattern) => `${expr} ILIKE ${pattern} ESCAPE '\\'`,
  // The planner keeps statistics (autovacuum's ANALYZE): no hints, and none to give.
  indexedBy: (table) => table,
  // The pool's search_path is the read-model schema, so current_schema() is it.
  tableExists: 'SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?',
};
