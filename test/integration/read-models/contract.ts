import { describe, expect, it } from 'vitest';
import type { TableSchema } from '../../../src/store/sql';
import type { ReadModelStore } from '../../../src/store/read-models';
import { encodedRows } from '../../../src/store/row-text';

const items: TableSchema = {
  name: 'items',
  columns: { id: 'integer', name: 'text', score: 'real?', big: 'integer', payload: 'blob?', note: 'text?' },
  primaryKey: ['id'],
  unique: [['name']],
  indexes: { items_by_score: ['score'] },
  orderBy: 'id',
};

const tags: TableSchema = {
  name: 'tags',
  columns: { project_id: 'integer', tag: 'text', item_id: 'integer' },
  primaryKey: ['project_id', 'tag'],
  clustered: true,
  orderBy: 'project_id, tag',
};

async function withTables(store: ReadModelStore) {
  await store.transaction(async (tx) => {
    await tx.createTables([items, tags]);
    await tx.createTables([items, tags]);
  });
}

/**
 * The read-model port's contract: every adapter answers portable SQL the same way, commits a
 * transaction whole or not at all, undoes a failed savepoint alone, and serialises transactions that
 * share a lock. `open()` gives a fresh, empty store; `reopen` a second handle on the same one.
 */
export function readModelContract(
  name: string,
  open: () => Promise<{ store: ReadModelStore; reopen: () => Promise<ReadModelStore> }>,
  options: {
    /** Whether two handles may write concurrently from one thread (SQLite's second connection would wait on the file lock instead). */
    handlesInOneThread: boolean;
    /**
     * Commits a write as another process would, while this thread holds a transaction open (where
     * the store's own handles of one thread take turns, a second handle cannot).
     */
    commitElsewhere?: (store: ReadModelStore, sql: string, ...params: (string | number)[]) => Promise<void>;
  } = { handlesInOneThread: true },
) {
  const commitElsewhere =
    options.commitElsewhere ?? (async (store: ReadModelStore, sql: string, ...params: (string | number)[]) => void (await store.transaction((w) => w.run(sql, ...params))));
  describe(`read-model contract: ${name}`, () => {
    it('creates declared tables idempotently and round-trips every column type', async () => {
      const { store } = await open();
      expect(await store.hasTable('items')).toBe(false);
      await withTables(store);
      expect(await store.hasTable('items')).toBe(true);
      const blob = Buffer.from([0, 1, 2, 255]);
      await store.transaction(async (tx) => {
        await tx.run('INSERT INTO items (id, name, score, big, payload, note) VALUES (?, ?, ?, ?, ?, ?)', 1, 'é😀 \'quoted\' ?', 1.5, Number.MAX_SAFE_INTEGER, blob, null);
        await tx.run('INSERT INTO items (id, name, score, big, payload, note) VALUES (?, ?, ?, ?, ?, ?)', 2, 'two', null, -7, null, 'n');
      });
      const rows = await store.session.all('SELECT * FROM items ORDER BY id');
      expect(rows).toEqual([
        { id: 1, name: 'é😀 \'quoted\' ?', score: 1.5, big: Number.MAX_SAFE_INTEGER, payload: blob, note: null },
        { id: 2, name: 'two', score: null, big: -7, payload: null, note: 'n' },
      ]);
      // Columns come back in declared order (digests hash rows in it).
      expect(Object.keys(rows[0])).toEqual(['id', 'name', 'score', 'big', 'payload', 'note']);
      await store.close();
    });

    it('inserts many rows in one call, every column type; a duplicate key fails the call', async () => {
      const { store } = await open();
      await withTables(store);
      const blob = Buffer.from([0, 1, 2, 255]);
      const rows = [
        [3, 'é😀 \'quoted\' ? {"a":[1,"\\"]}', 1.5, Number.MAX_SAFE_INTEGER, blob, null],
        [1, 'NULL', null, -7, null, 'n'],
        [2, '', 0.25, 0, null, ''],
      ];
      await store.transaction((tx) => tx.insertRows(items, rows));
      await store.transaction((tx) => tx.insertRows(items, []));
      expect(await store.session.all('SELECT * FROM items ORDER BY id')).toEqual([
        { id: 1, name: 'NULL', score: null, big: -7, payload: null, note: 'n' },
        { id: 2, name: '', score: 0.25, big: 0, payload: null, note: '' },
        { id: 3, name: 'é😀 \'quoted\' ? {"a":[1,"\\"]}', score: 1.5, big: Number.MAX_SAFE_INTEGER, payload: blob, note: null },
      ]);
      await expect(store.transaction((tx) => tx.insertRows(items, [[4, 'four', null, 4, null, null], [1, 'again', null, 1, null, null]]))).rejects.toThrow();
      expect(await store.session.get('SELECT count(*) AS n FROM items')).toEqual({ n: 3 });
      await store.close();
    });

    it('inserts many rows whatever their text holds: escapes, a lone surrogate, backslash sequences, long text', async () => {
      const { store } = await open();
      await withTables(store);
      const texts = ['a\ud800b', String.raw`\u0000 and \ud83d as six characters`, '\\', '"', '\t\n\r', 'x'.repeat(100_000), 'tab\there', '{"nested":{"a":[1,2,{"b":"\\\""}]}}'];
      const rows = texts.map((text, i) => [i + 1, text, i / 3, 2 ** 40 + i, null, i % 2 ? null : `note ${i}`]);
      // Apart: texts that can travel as JSON, then the two whose JSON escapes PostgreSQL refuses.
      await store.transaction((tx) => tx.insertRows(items, rows.slice(2)));
      await store.transaction((tx) => tx.insertRows(items, rows.slice(0, 2)));
      const stored = await store.session.all<{ id: number; name: string; score: number; big: number; note: string | null }>('SELECT id, name, score, big, note FROM items ORDER BY id');
      // A lone surrogate cannot be stored as UTF-8: each engine keeps U+FFFD (one or three) in its place.
      expect(stored[0].name).toMatch(/^a\ufffd+b$/);
      expect(stored.slice(1).map((r) => r.name)).toEqual(texts.slice(1));
      expect(stored.map((r) => [r.id, r.score, r.big, r.note])).toEqual(rows.map((r) => [r[0], r[2], r[3], r[5]]));
      await store.close();
    });

    it('leaves a question mark inside a string literal alone', async () => {
      const { store } = await open();
      await withTables(store);
      await store.transaction((tx) => tx.run("INSERT INTO items (id, name, big) VALUES (?, 'what?', ?)", 1, 2));
      expect(await store.session.get("SELECT name, big FROM items WHERE name = 'what?' AND id = ?", 1)).toEqual({ name: 'what?', big: 2 });
      await store.close();
    });

    it('answers counts, sums, EXISTS and comparisons as numbers (booleans as 1/0)', async () => {
      const { store } = await open();
      await withTables(store);
      await store.transaction(async (tx) => {
        for (let i = 1; i <= 3; i++) await tx.run('INSERT INTO items (id, name, big) VALUES (?, ?, ?)', i, `n${i}`, i * 10);
      });
      const row = await store.session.get(
        `SELECT count(*) AS n, sum(big) AS total, coalesce(max(id), 0) + 1 AS next,
           EXISTS (SELECT 1 FROM items WHERE id = 2) AS has_two, EXISTS (SELECT 1 FROM items WHERE id = 9) AS has_nine
         FROM items`,
      );
      expect(row).toEqual({ n: 3, total: 60, next: 4, has_two: 1, has_nine: 0 });
      await store.close();
    });

    it('upserts with ON CONFLICT (do nothing, do update)', async () => {
      const { store } = await open();
      await withTables(store);
      await store.transaction(async (tx) => {
        await tx.run('INSERT INTO tags (project_id, tag, item_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', 1, 'a', 1);
        expect((await tx.run('INSERT INTO tags (project_id, tag, item_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', 1, 'a', 2)).changes).toBe(0);
        await tx.run(
          'INSERT INTO tags (project_id, tag, item_id) VALUES (?, ?, ?) ON CONFLICT (project_id, tag) DO UPDATE SET item_id = excluded.item_id',
          1,
          'b',
          3,
        );
        await tx.run(
          'INSERT INTO tags (project_id, tag, item_id) VALUES (?, ?, ?) ON CONFLICT (project_id, tag) DO UPDATE SET item_id = excluded.item_id',
          1,
          'b',
          4,
        );
      });
      expect(await store.session.all('SELECT tag, item_id FROM tags ORDER BY tag')).toEqual([
        { tag: 'a', item_id: 1 },
        { tag: 'b', item_id: 4 },
      ]);
      await store.close();
    });

    it('commits a transaction whole, or rolls all of it back when it throws', async () => {
      const { store } = await open();
      await withTables(store);
      await expect(
        store.transaction(async (tx) => {
          await tx.run('INSERT INTO items (id, name, big) VALUES (?, ?, ?)', 1, 'a', 0);
          throw new Error('fold failed');
        }),
      ).rejects.toThrow('fold failed');
      expect(await store.session.all('SELECT id FROM items')).toEqual([]);
      // A constraint violation is an error of the statement, and rolls back the same way.
      await expect(
        store.transaction(async (tx) => {
          await tx.run('INSERT INTO items (id, name, big) VALUES (?, ?, ?)', 1, 'a', 0);
          await tx.run('INSERT INTO items (id, name, big) VALUES (?, ?, ?)', 2, 'a', 0);
        }),
      ).rejects.toThrow();
      expect(await store.session.all('SELECT id FROM items')).toEqual([]);
      await store.close();
    });

    it('undoes a failed savepoint alone and commits the rest of the transaction', async () => {
      const { store } = await open();
      await withTables(store);
      await store.transaction(async (tx) => {
        await tx.run('INSERT INTO items (id, name, big) VALUES (?, ?, ?)', 1, 'kept', 0);
        await expect(
          tx.savepoint(async () => {
            await tx.run('INSERT INTO items (id, name, big) VALUES (?, ?, ?)', 2, 'undone', 0);
            await tx.run('INSERT INTO items (id, name, big) VALUES (?, ?, ?)', 3, 'kept', 0); // unique name
          }),
        ).rejects.toThrow();
        await tx.savepoint(() => tx.run('INSERT INTO items (id, name, big) VALUES (?, ?, ?)', 4, 'also kept', 0));
      });
      expect(await store.session.all('SELECT id FROM items ORDER BY id')).toEqual([{ id: 1 }, { id: 4 }]);
      await store.close();
    });

    it('drops tables inside a transaction, and a rollback keeps them', async () => {
      const { store } = await open();
      await withTables(store);
      await store.transaction((tx) => tx.run('INSERT INTO items (id, name, big) VALUES (1, ?, 0)', 'x'));
      await expect(
        store.transaction(async (tx) => {
          await tx.dropTables(['items']);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow();
      expect(await store.session.all('SELECT id FROM items')).toEqual([{ id: 1 }]);
      await store.transaction((tx) => tx.dropTables(['items', 'never_existed']));
      expect(await store.hasTable('items')).toBe(false);
      await store.close();
    });

    it('streams rows as arrays in order, past one page', async () => {
      const { store } = await open();
      await withTables(store);
      await store.transaction(async (tx) => {
        for (let i = 1; i <= 2500; i++) await tx.run('INSERT INTO items (id, name, big) VALUES (?, ?, ?)', i, `n${i}`, i);
      });
      const seen: unknown[][] = [];
      for await (const row of store.session.stream('SELECT id, big FROM items WHERE id > ? ORDER BY id', 10)) seen.push(row);
      expect(seen).toHaveLength(2490);
      expect(seen[0]).toEqual([11, 11]);
      expect(seen.at(-1)).toEqual([2500, 2500]);
      await store.close();
    });

    it('reads whole tables as row texts: what rowText makes of the values streamed, in orderBy order', async () => {
      const { store } = await open();
      await withTables(store);
      const blob = Buffer.from([0, 1, 2, 255]);
      const texts = ['plain', '', '"quoted" \\ back', '\u0001\u001f\u007f\b\f\n\r\t', 'é😀\u2028\u2029\ufeff\u00a0', 'a\ud800b', '{"a":[1,"\\""]}'];
      await store.transaction(async (tx) => {
        await tx.insertRows(
          items,
          texts.map((text, i) => [10 - i, text, i % 2 ? null : i / 3, i % 3 ? 2 ** 53 + 2 * i : -(2 ** 31) - i, i === 2 ? blob : null, i % 2 ? `n${i}` : null]),
        );
        await tx.insertRows(tags, [[2, 'b', 1], [1, 'z\n', 2], [1, 'a', 3]]);
      });
      const all = async (rows: AsyncIterable<string>) => {
        const out: string[] = [];
        for await (const row of rows) out.push(row);
        return out;
      };
      for (const table of [items, tags]) {
        const texts = await all(store.session.rowTexts(table));
        expect(texts).toEqual(await all(encodedRows(store.session.stream, table)));
      }
      // Literally, so the reference cannot drift along: declared column order, orderBy order.
      expect(await all(store.session.rowTexts(tags))).toEqual(['[1,"a",3]', '[1,"z\\n",2]', '[2,"b",1]']);
      expect((await all(store.session.rowTexts(items)))[6]).toBe('[10,"plain",0,-2147483648,null,null]');
      await store.close();
    });

    it('speaks the dialect: JSON arrays as one parameter, JSON keys, aggregation to JSON, case-insensitive LIKE', async () => {
      const { store } = await open();
      await withTables(store);
      const d = store.dialect;
      await store.transaction(async (tx) => {
        await tx.run('INSERT INTO items (id, name, big, note) VALUES (?, ?, ?, ?)', 1, 'Alpha', 1, JSON.stringify({ k: 'v', n: 2, 'odd "key"': 'x' }));
        await tx.run('INSERT INTO items (id, name, big, note) VALUES (?, ?, ?, ?)', 2, 'beta', 2, JSON.stringify({ k: 'w' }));
        await tx.run('INSERT INTO items (id, name, big, note) VALUES (?, ?, ?, ?)', 3, 'GAMMA', 3, JSON.stringify({}));
      });
      const ids = (rows: { id: number }[]) => rows.map((r) => r.id);
      expect(ids(await store.session.all(`SELECT id FROM items WHERE ${d.inJsonArray('id', 'integer')} ORDER BY id`, JSON.stringify([3, 1, 99])))).toEqual([1, 3]);
      expect(ids(await store.session.all(`SELECT id FROM items WHERE ${d.inJsonArray('name', 'text')} ORDER BY id`, JSON.stringify(['beta', 'nope'])))).toEqual([2]);
      expect(ids(await store.session.all(`SELECT id FROM items WHERE ${d.inJsonArray('id', 'integer')}`, '[]'))).toEqual([]);
      expect(await store.session.all(`SELECT ${d.jsonText('note', 'k')} AS k FROM items ORDER BY id`)).toEqual([{ k: 'v' }, { k: 'w' }, { k: null }]);
      expect(await store.session.get(`SELECT ${d.jsonText('note', 'odd "key"')} AS k FROM items WHERE id = 1`)).toEqual({ k: 'x' });
      const agg = await store.session.get<{ names: string }>(`SELECT ${d.jsonArrayAgg('name', 'id DESC')} AS names FROM items`);
      expect(JSON.parse(agg!.names)).toEqual(['GAMMA', 'beta', 'Alpha']);
      const none = await store.session.get<{ names: string }>(`SELECT ${d.jsonArrayAgg('name', 'id')} AS names FROM items WHERE id > 10`);
      expect(JSON.parse(none!.names)).toEqual([]);
      expect(ids(await store.session.all(`SELECT id FROM items WHERE ${d.likeIgnoringCase('name', '?')} ORDER BY id`, '%A%'))).toEqual([1, 2, 3]);
      expect(ids(await store.session.all(`SELECT id FROM items WHERE ${d.likeIgnoringCase('name', '?')} ORDER BY id`, 'gam\\_%'))).toEqual([]);
      await store.close();
    });

    it('never lets two transactions holding one lock overlap, even through two handles', async () => {
      const { store, reopen } = await open();
      await withTables(store);
      const other = options.handlesInOneThread ? await reopen() : store;
      await store.transaction((tx) => tx.run('INSERT INTO items (id, name, big) VALUES (1, ?, 0)', 'counter'));
      // Read-modify-write: without mutual exclusion, increments would be lost.
      const bump = (s: ReadModelStore) =>
        s.transaction(
          async (tx) => {
            const row = await tx.get<{ big: number }>('SELECT big FROM items WHERE id = 1');
            await new Promise((r) => setTimeout(r, 2));
            await tx.run('UPDATE items SET big = ? WHERE id = 1', row!.big + 1);
          },
          { lock: 'counter' },
        );
      await Promise.all(Array.from({ length: 20 }, (_, i) => bump(i % 2 ? store : other)));
      expect(await store.session.get('SELECT big FROM items WHERE id = 1')).toEqual({ big: 20 });
      if (other !== store) await other.close();
      await store.close();
    });

    it('reads one snapshot in a snapshot transaction while another handle commits', async () => {
      const { store, reopen } = await open();
      await withTables(store);
      const other = await reopen();
      await store.transaction((tx) => tx.run('INSERT INTO items (id, name, big) VALUES (1, ?, 0)', 'a'));
      const counts = await other.transaction(
        async (tx) => {
          const before = await tx.get<{ n: number }>('SELECT count(*) AS n FROM items');
          await commitElsewhere(store, 'INSERT INTO items (id, name, big) VALUES (2, ?, 0)', 'b');
          const after = await tx.get<{ n: number }>('SELECT count(*) AS n FROM items');
          return [before!.n, after!.n];
        },
        { snapshot: true },
      );
      expect(counts).toEqual([1, 1]);
      expect(await other.session.get('SELECT count(*) AS n FROM items')).toEqual({ n: 2 });
      await other.close();
      await store.close();
    });
  });
}
