import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { featureFlagsProjection } from '../../../projections';
import type { ReadModelProjection } from '../../../src/store/read-model-projection';
import type { SqlSession } from '../../../src/store/sql';
import { PostgresReadModelStore } from '../../../src/adapters/postgres/read-models';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { digestProjection } from '../../../src/runtime/digest';
import { ProjectionRunner } from '../../../src/runtime/projection-runner';
import type { EventLog } from '../../../src/store/event-log';
import type { ReadModelStore } from '../../../src/store/read-models';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { tempDir } from '../../support/temp-dir';

export interface FoldedStores {
  sqlite: SqlSession;
  postgres: SqlSession;
  /** sha256 of each projection's rows on each store (default: every projection folded). */
  digests: (projections?: readonly ReadModelProjection[]) => Promise<{ sqlite: string[]; postgres: string[] }>;
  /** The answer of `query` on both stores (for toEqual). */
  both: <T>(query: (db: SqlSession) => Promise<T>) => Promise<{ sqlite: T; postgres: T }>;
  close: () => Promise<void>;
}

/**
 * The PostgreSQL user the read-model tests connect as, or null (locally: skip). In CI an unreachable
 * server fails the availability test instead of skipping silently.
 */
export async function pgUserForSuite(): Promise<string | null> {
  const user = await reachablePgUser();
  describe('PostgreSQL availability', () => {
    it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
      expect(user, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
    });
  });
  return user;
}

/** Fresh schemas for this file's tests (dropped after them), or null when PostgreSQL is down. */
export async function postgresForReadModels(prefix: string) {
  const user = await pgUserForSuite();
  if (user === null) return null;
  const schemas = pgSchemas(user, prefix);
  afterAll(() => schemas.dropAll());
  return schemas;
}

/**
 * Folds the whole log into a fresh SQLite read-model store and a fresh PostgreSQL schema with the
 * real runner, through the given projections (in order: a later one may read an earlier one's tables).
 */
export async function foldIntoBoth(
  log: EventLog,
  projections: readonly ReadModelProjection[],
  schemas: NonNullable<Awaited<ReturnType<typeof postgresForReadModels>>>,
): Promise<FoldedStores> {
  const dir = tempDir('read-models-');
  const sqliteDbs = [openSqlite(join(dir, 'readmodels.sqlite')), openSqlite(join(dir, 'analytics.sqlite'))];
  const sqlite = { readmodels: new SqliteReadModelStore(sqliteDbs[0]), analytics: new SqliteReadModelStore(sqliteDbs[1]) };
  const pg = await PostgresReadModelStore.open({ connection: schemas.connection, schema: schemas.fresh(), maxConnections: 4 });
  const postgres: Record<'readmodels', ReadModelStore> = { readmodels: pg };
  for (const stores of [sqlite, postgres]) {
    const runner = new ProjectionRunner(log, stores, projections);
    await runner.ready;
    await runner.catchUp();
    expect(runner.failures()).toEqual({});
    expect(runner.quarantines().count).toBe(0);
  }
  const digestsOf = (session: SqlSession, list: readonly ReadModelProjection[]) => Promise.all(list.map((p) => digestProjection(session, p)));
  return {
    sqlite: sqlite.readmodels.session,
    postgres: pg.session,
    digests: async (list = projections) => ({ sqlite: await digestsOf(sqlite.readmodels.session, list), postgres: await digestsOf(pg.session, list) }),
    both: async (query) => ({ sqlite: await query(sqlite.readmodels.session), postgres: await query(pg.session) }),
    close: async () => {
      await pg.close();
      for (const db of sqliteDbs) db.close();
    },
  };
}

/**
 * A file's folding function: each call folds a log with `projections` into fresh stores. With
 * `withFlags`, the feature flags read model (which some queries join) is folded first.
 */
export function bothStores(user: string, prefix: string) {
  const schemas = pgSchemas(user, prefix);
  afterAll(() => schemas.dropAll());
  return (log: EventLog, projections: readonly ReadModelProjection[], options: { withFlags?: boolean } = {}) =>
    foldIntoBoth(log, [...(options.withFlags ? [featureFlagsProjection] : []), ...projections], schemas);
}
