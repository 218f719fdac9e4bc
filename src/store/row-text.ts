import { columnList, type SqlSession, type TableSchema } from './sql';

const withBigints = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

/**
 * A row's text as digests hash it: the JSON array of its values in the order of its table's
 * `columns`, a bigint as its decimal string. A replacer is called for every value of every row (a
 * third of a digest's time over a replayed events table), so rows without a bigint, nearly all, are
 * encoded without one: the same text, as the replacer returns every other value as it is.
 */
export function rowText(row: readonly unknown[]): string {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, the replacer returns every value but a bigint as it is
  for (const v of row) if (typeof v === 'bigint') return JSON.stringify(row, withBigints);
  return JSON.stringify(row);
}

/**
 * Every row of `table` in its `orderBy` order as `rowText`, read value by value through `stream`:
 * how an engine that cannot build the texts itself answers `SqlSession.rowTexts`, and the
 * reference the engines that can are tested against.
 */
export async function* encodedRows(stream: SqlSession['stream'], table: TableSchema): AsyncIterable<string> {
  for await (const row of stream(`SELECT ${columnList(table)} FROM "${table.name}" ORDER BY ${table.orderBy}`)) yield rowText(row);
}
