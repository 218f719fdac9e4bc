import { columnTypeOf, type ColumnType, type TableSchema } from '../../../store/sql';

const TYPES: Record<ColumnType, string> = { text: 'TEXT', integer: 'INTEGER', real: 'REAL', blob: 'BLOB' };

/** CREATE statements for one table and its indexes, in SQLite's dialect (idempotent). */
export function sqliteTableDdl(table: TableSchema): string[] {
  const columns = Object.entries(table.columns).map(([name, type]) => {
    const nullable = type.endsWith('?');
    return `"${name}" ${TYPES[columnTypeOf(type)]}${nullable ? '' : ' NOT NULL'}`;
  });
  const keys = table.primaryKey.length ? [`PRIMARY KEY (${table.primaryKey.map((c) => `"${c}"`).join(', ')})`] : [];
  for (const unique of table.unique ?? []) keys.push(`UNIQUE (${unique.map((c) => `"${c}"`).join(', ')})`);
  const statements = [
    `CREATE TABLE IF NOT EXISTS "${table.name}" (\n  ${[...columns, ...keys].join(',\n  ')}\n)${table.clustered ? ' WITHOUT ROWID' : ''}`,
  ];
  for (const [name, cols] of Object.entries(table.indexes ?? {})) {
    statements.push(`CREATE INDEX IF NOT EXISTS "${name}" ON "${table.name}" (${cols.map((c) => `"${c}"`).join(', ')})`);
  }
  return statements;
}
