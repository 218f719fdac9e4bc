import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { featureFlagsProjection, type ReadModelProjection } from '../../../projections';
import type { SqlSession } from '../../../projections/sql';
import { PostgresReadModelStore } from '../../../src/adapters/postgres/read-models';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { digestProjection } from '../../../src/runtime/digest';
import { ProjectionRunner } from '../../../src/runtime/projection-runner';
import type { EventLog } from '../../../src/store/event-log';
import { openSqlite } from '../../../src/store/sqlite/open';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { tempDir } from '../../support/temp-dir';

/**
 * The PostgreSQL user the read-model suites connect as, or null when the server is down: then the
 * suite is skipped locally, but in CI a test fails instead.
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

export interface BothStores {
  sqlite: SqlSession;
  postgres: SqlSession;
  /** Each projection's digest on both stores. */
  digests(projections: readonly ReadModelProjection[]): Promise<{ sqlite: string[]; postgres: string[] }>;
  /** The answer of `query` on both stores (for toEqual). */
  both<T>(query: (db: SqlSession) => Promise<T>): Promise<{ sqlite: T; postgres: T }>;
  close(): Promise<void>;
}

/**
 * Folds the whole log with `projections` into a fresh SQLite read-model store and a fresh
 * PostgreSQL schema, each through its own ProjectionRunner. With `withFlags`, the feature flags
 * read model (which some queries join) is folded on both too.
 */
export function bothStores(user: string, prefix: string) {
  const schemas = pgSchemas(user, prefix);
  afterAll(() => schemas.dropAll());
  const root = tempDir('rm-both-');
  return async (log: EventLog, projections: readonly ReadModelProjection[], options: { withFlags?: boolean } = {}): Promise<BothStores> => {
    const dir = mkdtempSync(join(root, 'stores-'));
    const files = { readmodels: openSqlite(join(dir, 'readmodels.sqlite')), analytics: openSqlite(join(dir, 'analytics.sqlite')) };
    const sqlite = { readmodels: new SqliteReadModelStore(files.readmodels), analytics: new SqliteReadModelStore(files.analytics) };
    const pgStore = await PostgresReadModelStore.open({ connection: schemas.connection, schema: schemas.fresh(), maxConnections: 2 });
    const postgres = { readmodels: pgStore, analytics: pgStore };

    const flags = options.withFlags ? [featureFlagsProjection] : [];
    const fold = async (stores: typeof postgres | typeof sqlite, list: readonly ReadModelProjection[]) => {
      const runner = new ProjectionRunner(log, stores, list);
      await runner.ready;
      await runner.catchUp();
      expect(runner.failures()).toEqual({});
      expect(runner.quarantines().count).toBe(0);
    };
    await fold(sqlite, [...flags, ...projections]);
    await fold(postgres, [...flags, ...projections]);

    return {
      sqlite: sqlite.readmodels.session,
      postgres: pgStore.session,
      digests: async (list) => ({
        sqlite: await Promise.all(list.map((p) => digestProjection(sqlite.readmodels.session, p))),
        postgres: await Promise.all(list.map((p) => digestProjection(pgStore.session, p))),
      }),
      both: async (query) => ({ sqlite: await query(sqlite.readmodels.session), postgres: await query(pgStore.session) }),
      close: async () => {
        await pgStore.close();
        files.readmodels.close();
        files.analytics.close();
      },
    };
  };
}

