import type { SqlDialect } from '../../../../projections/sql';

const quoteText = (s: string) => `'${s.replaceAll("'", "''")}'`;

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  inJsonArray: (expr) => `${expr} IN (SELECT value FROM json_each(?))`,
  jsonText: (column, key) => `json_extract(${column}, ${quoteText(`$."${key.replaceAll('"', '\\"')}"`)})`,
  jsonArrayAgg: (expr, orderBy) => `coalesce((SELECT json_group_array(v) FROM (SELECT ${expr} AS v ORDER BY ${orderBy})), '[]')`,
  // SQLite's LIKE ignores ASCII case already.
  likeIgnoringCase: (expr, pattern) => `${expr} LIKE ${pattern} ESCAPE '\\'`,
};
