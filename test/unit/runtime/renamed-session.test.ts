import { describe, expect, it } from 'vitest';
import { RenamedSessions, renameInSql, renamedSchema } from '../../../src/runtime/side-by-side/renamed-session';
import { sqliteDialect } from '../../../src/adapters/sqlite/read-models/dialect';
import type { SqlValue } from '../../../src/store/read-model-projection';
import type { SqlSession, TableSchema } from '../../../src/store/sql';

const renames = new Map([
  ['persons', 'persons__v9'],
  ['events', 'events__v9'],
  ['events_by_time', 'events_by_time__v9'],
]);

describe('renaming the tables of a statement', () => {
  it('renames bare and double-quoted table and index names', () => {
    expect(renameInSql('INSERT INTO persons (uuid) SELECT p.uuid FROM "persons" p JOIN events INDEXED BY events_by_time ON 1', renames)).toBe(
      'INSERT INTO persons__v9 (uuid) SELECT p.uuid FROM "persons__v9" p JOIN events__v9 INDEXED BY events_by_time__v9 ON 1',
    );
  });

  it('leaves string literals, qualified names and longer words alone', () => {
    expect(renameInSql("SELECT e.persons, persons_count, 'persons' FROM events WHERE x = 'it''s events'", renames)).toBe(
      "SELECT e.persons, persons_count, 'persons' FROM events__v9 WHERE x = 'it''s events'",
    );
  });

  it('renames a schema with its indexes', () => {
    const table = renamedSchema({ name: 'events', columns: { uuid: 'text' }, primaryKey: ['uuid'], indexes: { events_by_time: ['uuid'] }, orderBy: 'uuid' }, '__v9');
    expect(table.name).toBe('events__v9');
    expect(table.indexes).toEqual({ events_by_time__v9: ['uuid'] });
  });
});

describe('a session on the renamed tables', () => {
  const events: TableSchema = { name: 'events', columns: { uuid: 'text' }, primaryKey: ['uuid'], orderBy: 'uuid' };
  const other: TableSchema = { name: 'other', columns: { id: 'integer' }, primaryKey: ['id'], orderBy: 'id' };
  const renamedEvents = renamedSchema(events, '__v9');

  /** Records what reaches the underlying session; `get` shared by the sessions of one store. */
  function innerSessions() {
    const calls: unknown[][] = [];
    const get = async <R>(sql: string, ...params: SqlValue[]) => (calls.push(['get', sql, ...params]), { sql } as R);
    const make = (tag: string): SqlSession => ({
      dialect: sqliteDialect,
      all: async <R>(sql: string, ...params: SqlValue[]) => (calls.push([tag, 'all', sql, ...params]), [] as R[]),
      get,
      run: async (sql: string, ...params: SqlValue[]) => (calls.push([tag, 'run', sql, ...params]), { changes: 1 }),
      async *stream(sql: string, ...params: SqlValue[]) {
        calls.push([tag, 'stream', sql, ...params]);
        yield [sql];
      },
      async *rowTexts(table: TableSchema) {
        calls.push([tag, 'rowTexts', table]);
        yield table.name;
      },
      insertRows: async (table: TableSchema, rows: readonly (readonly SqlValue[])[]) => void calls.push([tag, 'insertRows', table, rows]),
    });
    return { calls, make };
  }
  const collect = async <T>(items: AsyncIterable<T>) => {
    const out: T[] = [];
    for await (const item of items) out.push(item);
    return out;
  };

  it('sends every statement renamed, and the renamed schema (indexes too) where a table is named', async () => {
    const { calls, make } = innerSessions();
    const sessions = new RenamedSessions(renames, new Map([['events', renamedEvents]]));
    const session = sessions.of(make('tx1'));
    expect(session.dialect).toBe(sqliteDialect);
    expect(await session.all('SELECT * FROM events WHERE uuid = ?', 'u')).toEqual([]);
    expect(await session.get('SELECT * FROM persons')).toEqual({ sql: 'SELECT * FROM persons__v9' });
    expect(await session.run('DELETE FROM events')).toEqual({ changes: 1 });
    expect(await collect(session.stream('SELECT uuid FROM events', 3))).toEqual([['SELECT uuid FROM events__v9']]);
    expect(await collect(session.rowTexts(events))).toEqual(['events__v9']);
    // A table with no next version is its own.
    expect(await collect(session.rowTexts(other))).toEqual(['other']);
    await session.insertRows(events, [['u']]);
    expect(calls).toEqual([
      ['tx1', 'all', 'SELECT * FROM events__v9 WHERE uuid = ?', 'u'],
      ['get', 'SELECT * FROM persons__v9'],
      ['tx1', 'run', 'DELETE FROM events__v9'],
      ['tx1', 'stream', 'SELECT uuid FROM events__v9', 3],
      ['tx1', 'rowTexts', renamedEvents],
      ['tx1', 'rowTexts', other],
      ['tx1', 'insertRows', renamedEvents, [['u']]],
    ]);
  });

  it('is one session per store, re-aimed at each transaction of it', async () => {
    const { calls, make } = innerSessions();
    const sessions = new RenamedSessions(renames, new Map([['events', renamedEvents]]));
    const first = sessions.of(make('tx1'));
    const second = sessions.of(make('tx2'));
    expect(second).toBe(first);
    await first.run('DELETE FROM events');
    await first.run('DELETE FROM events');
    expect(calls).toEqual([
      ['tx2', 'run', 'DELETE FROM events__v9'],
      ['tx2', 'run', 'DELETE FROM events__v9'],
    ]);
  });
});
