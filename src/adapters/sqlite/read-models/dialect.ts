import type { SqlDialect } from '../../../store/sql';

const quoteText = (s: string) => `'${s.replaceAll("'", "''")}'`;

const jsonPath = (key: string) => `$."${key.replaceAll('"', '\\"')}"`;

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  inJsonArray: (expr) => `${expr} IN (SELECT value FROM json_each(?))`,
  jsonText: (column, key) => `json_extract(${column}, ${quoteText(jsonPath(key))})`,
  // `->>` gives a JSON string as text and numbers/booleans as numbers, which never equal a text.
  jsonString: (column) => `${column} ->> ?`,
  jsonStringKey: (key) => jsonPath(key),
  containsText: (haystack, needle) => `instr(${haystack}, ${needle}) > 0`,
  // ORDER BY inside an aggregate: SQLite 3.44 and later (better-sqlite3 bundles a newer one).
  jsonArrayAgg: (expr, orderBy) => `json_group_array(${expr} ORDER BY ${orderBy})`,
  // SQLite's LIKE ignores ASCII case already.
  likeIgnoringCase: (expr, pattern) => `${expr} LIKE ${pattern} ESCAPE '\\'`,
  indexedBy: (table, index) => `${table} INDEXED BY ${index}`,
  tableExists: `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`,
};
