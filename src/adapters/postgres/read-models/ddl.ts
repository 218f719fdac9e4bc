import { columnTypeOf, type ColumnType, type TableSchema } from '../../../store/sql';

/**
 * BIGINT: read-model integers hold millisecond times and log positions, past 32 bits. Text compares
 * byte-wise (the "C" collation), as SQLite's does, whatever the database's locale: orderings,
 * ranges over ISO times and digests then agree between the engines.
 */
const TYPES: Record<ColumnType, string> = { text: 'TEXT COLLATE "C"', integer: 'BIGINT', real: 'DOUBLE PRECISION', blob: 'BYTEA' };

/** CREATE statements for one table and its indexes, in PostgreSQL's dialect (idempotent). */
export function postgresTableDdl(table: TableSchema): string[] {
  const columns = Object.entries(table.columns).map(([name, type]) => {
    const nullable = type.endsWith('?');
    return `"${name}" ${TYPES[columnTypeOf(type)]}${nullable ? '' : ' NOT NULL'}`;
  });
  const keys = table.primaryKey.length ? [`PRIMARY KEY (${table.primaryKey.map((c) => `"${c}"`).join(', ')})`] : [];
  for (const unique of table.unique ?? []) keys.push(`UNIQUE (${unique.map((c) => `"${c}"`).join(', ')})`);
  const statements = [`CREATE TABLE IF NOT EXISTS "${table.name}" (\n  ${[...columns, ...keys].join(',\n  ')}\n)`];
  for (const [name, cols] of Object.entries(table.indexes ?? {})) {
    statements.push(`CREATE INDEX IF NOT EXISTS "${name}" ON "${table.name}" (${cols.map((c) => `"${c}"`).join(', ')})`);
  }
  return statements;
}
