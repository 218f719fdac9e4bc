import type { SqlDialect } from '../../../../projections/sql';

const quoteText = (s: string) => `'${s.replaceAll("'", "''")}'`;

export const postgresDialect: SqlDialect = {
  name: 'postgres',
  inJsonArray: (expr, kind) =>
    kind === 'integer'
      ? `${expr} IN (SELECT (jsonb_array_elements_text(?::jsonb))::bigint)`
      : `${expr} IN (SELECT jsonb_array_elements_text(?::jsonb))`,
  jsonText: (column, key) => `(${column}::jsonb ->> ${quoteText(key)})`,
  jsonArrayAgg: (expr, orderBy) => `coalesce(json_agg(${expr} ORDER BY ${orderBy})::text, '[]')`,
  likeIgnoringCase: (expr, pattern) => `${expr} ILIKE ${pattern} ESCAPE '\\'`,
};
