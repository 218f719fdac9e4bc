import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SqlValue } from '../../../src/store/read-model-projection';
import type { TableSchema } from '../../../src/store/sql';
import { encodedRows } from '../../../src/store/row-text';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { tempDir } from '../../support/temp-dir';
import { readModelContract } from './contract';

// Two connections of one thread cannot both write (the second waits on the file lock the first
// holds while it awaits): processes and threads each have their own, and one connection's
// transactions take turns, which is what the lock test checks here.
readModelContract(
  'SQLite',
  async () => {
    const file = join(tempDir('read-models-'), 'readmodels.sqlite');
    const open = async () => new SqliteReadModelStore(openSqlite(file));
    return { store: await open(), reopen: open };
  },
  {
    handlesInOneThread: false,
    // A connection of its own, outside the store's turns: what another process's commit is.
    commitElsewhere: async (store, sql, ...params) => {
      const other = openSqlite((store as SqliteReadModelStore).db.name);
      other.prepare(sql).run(...params);
      other.close();
    },
  },
);

describe('SQLite row texts', () => {
  it('match the reference where a column holds what only SQLite stores: a real or text in an integer column, a blob in a text one', async () => {
    const db = openSqlite(join(tempDir('read-models-'), 'readmodels.sqlite'));
    const store = new SqliteReadModelStore(db);
    const table: TableSchema = { name: 'loose', columns: { id: 'integer', n: 'integer?', t: 'text?', r: 'real?' }, primaryKey: ['id'], orderBy: 'id' };
    await store.transaction((tx) => tx.createTables([table]));
    const rows: SqlValue[][] = [
      // Each row strays in one column only: the others alone would be written by the engine.
      [1, 1.5, 'a', null],
      [2, 'twelve', 'b', null],
      [3, 7, Buffer.from('hi'), null],
      [4, 2n ** 60n + 1n, null, null],
      [5, -(2n ** 53n) - 1n, 'é', null],
      [6, 8, 'c', 0.1 + 0.2],
      [7, 9, 'd', -0.0],
      [8, 10, 'e', 1e21],
      [9, 7, 'plain', null],
    ];
    const insert = db.prepare('INSERT INTO loose (id, n, t, r) VALUES (?, ?, ?, ?)');
    for (const row of rows) insert.run(...row);
    const all = async (texts: AsyncIterable<string>) => {
      const out: string[] = [];
      for await (const text of texts) out.push(text);
      return out;
    };
    const texts = await all(store.session.rowTexts(table));
    expect(texts).toEqual(await all(encodedRows(store.session.stream, table)));
    expect(texts[8]).toBe('[9,7,"plain",null]');
    expect(texts[0]).toBe('[1,1.5,"a",null]');
    expect(texts[3]).toBe('[4,1152921504606847000,null,null]');
    await store.close();
  });
});
