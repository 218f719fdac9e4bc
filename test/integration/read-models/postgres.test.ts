import { afterAll, describe, expect, it } from 'vitest';
import { PostgresReadModelStore } from '../../../src/adapters/postgres/read-models';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { readModelContract } from './contract';

const USER = await reachablePgUser();

describe('PostgreSQL availability', () => {
  // Locally a missing server skips the suite; in CI it must fail, never skip silently.
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
  });
});

if (USER !== null) {
  const schemas = pgSchemas(USER, 'rm_test');
  afterAll(() => schemas.dropAll());
  describe('PostgreSQL read-model tables', () => {
    // This machine's test database is C.UTF-8, which already sorts like SQLite; a server set up with
    // a linguistic locale would not, so the tables must say it themselves.
    it('declare their text columns with the byte-wise "C" collation, so orderings and digests match SQLite', async () => {
      const schema = schemas.fresh();
      const store = await PostgresReadModelStore.open({ connection: schemas.connection, schema });
      await store.transaction((tx) =>
        tx.createTables([{ name: 't', columns: { k: 'text', v: 'text?', n: 'integer' }, primaryKey: ['k'], orderBy: 'k' }]),
      );
      const rows = await store.session.all<{ column_name: string; collation_name: string | null }>(
        'SELECT column_name, collation_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position',
        schema,
        't',
      );
      expect(rows).toEqual([
        { column_name: 'k', collation_name: 'C' },
        { column_name: 'v', collation_name: 'C' },
        { column_name: 'n', collation_name: null },
      ]);
      await store.close();
    });
  });

  describe('PostgreSQL read-model statistics', () => {
    // Autovacuum would take up to a minute; meanwhile a fold filling the table plans by an empty one's.
    it('are refreshed soon after write transactions change a table by autovacuum\'s measure', async () => {
      const schema = schemas.fresh();
      const store = await PostgresReadModelStore.open({ connection: schemas.connection, schema });
      const table = { name: 'grown', columns: { k: 'integer', v: 'text' }, primaryKey: ['k'], orderBy: 'k' } as const;
      await store.transaction((tx) => tx.createTables([table]));
      const analyzed = async () =>
        (await store.session.get<{ n: number }>(
          'SELECT count(*) AS n FROM pg_stat_user_tables WHERE schemaname = ? AND relname = ? AND last_analyze IS NOT NULL',
          schema,
          'grown',
        ))!.n;
      expect(await analyzed()).toBe(0);
      let k = 0;
      const deadline = Date.now() + 20_000;
      while ((await analyzed()) === 0 && Date.now() < deadline) {
        await store.transaction((tx) => tx.insertRows(table, Array.from({ length: 500 }, () => [++k, `row ${k}`])));
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(await analyzed()).toBe(1);
      await store.close();
    }, 30_000);
  });

  readModelContract('PostgreSQL', async () => {
    const schema = schemas.fresh();
    const open = () => PostgresReadModelStore.open({ connection: schemas.connection, schema });
    return { store: await open(), reopen: open };
  });
}
