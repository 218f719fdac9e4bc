import { describe, expect, it } from 'vitest';
import { encodedRows, rowText } from '../../../src/store/row-text';
import { columnList, type TableSchema } from '../../../src/store/sql';

describe('rowText: a row as digests hash it', () => {
  it('is the JSON array of the values, a bigint as its decimal string', () => {
    expect(rowText([1, 'a"b', null, 1.5])).toBe('[1,"a\\"b",null,1.5]');
    expect(rowText([2n ** 64n + 1n, 'x', -3n])).toBe('["18446744073709551617","x","-3"]');
    // Only bigints change: a number stays a number beside one.
    expect(rowText([7, 8n])).toBe('[7,"8"]');
  });

  it('reads a table through stream in its declared column order and orderBy order', async () => {
    const table: TableSchema = { name: 't', columns: { b: 'text', a: 'integer?' }, primaryKey: ['a'], orderBy: 'a DESC' };
    expect(columnList(table)).toBe('"b", "a"');
    const asked: string[] = [];
    async function* stream(sql: string) {
      asked.push(sql);
      yield ['x', 2];
      yield ['y', 1n];
    }
    const texts: string[] = [];
    for await (const text of encodedRows(stream, table)) texts.push(text);
    expect(asked).toEqual(['SELECT "b", "a" FROM "t" ORDER BY a DESC']);
    expect(texts).toEqual(['["x",2]', '["y","1"]']);
  });
});
