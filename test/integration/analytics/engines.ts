import { join, resolve } from 'node:path';
import { ChdbConnection } from '../../../src/adapters/clickhouse/chdb/connection';
import type { ClickHouseConnection } from '../../../src/adapters/clickhouse/connection';
import { ClickHouseClient } from '../../../src/adapters/clickhouse/http-client';
import { CHDB_DIRECTORY, type FoldedAnalyticsChoice } from '../../../src/config';

/** A ClickHouse engine the service can keep its analytics store on, as a test reaches it. */
export interface AnalyticsEngine {
  name: string;
  /** The variables choosing it, with the database. */
  env(dataDir: string, database: string): Record<string, string>;
  choice(dataDir: string, database: string): FoldedAnalyticsChoice;
  /** A connection to `database` (null: outside any) on the engine the service in `dataDir` uses. */
  connect(dataDir: string, database: string | null): ClickHouseConnection;
}

/** A ClickHouse server (CLICKHOUSE_URL). */
export const serverEngine = (url: string): AnalyticsEngine => ({
  name: 'ClickHouse server',
  env: (_dataDir, database) => ({ CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: database }),
  choice: (_dataDir, database) => ({ kind: 'clickhouse', url, database }),
  connect: (_dataDir, database) => new ClickHouseClient(database === null ? { url } : { url, database }),
});

const chdbPathIn = (dataDir: string) => resolve(join(dataDir, CHDB_DIRECTORY));

/**
 * chDB in the service's process (ANALYTICS=chdb), its files in DATA_DIR. A test's connections share
 * its own process's one session; a service in another process needs them closed first.
 */
export const chdbEngine: AnalyticsEngine = {
  name: 'chDB',
  env: (_dataDir, database) => ({ ANALYTICS: 'chdb', CLICKHOUSE_DATABASE: database }),
  choice: (dataDir, database) => ({ kind: 'chdb', path: chdbPathIn(dataDir), database }),
  connect: (dataDir, database) => new ChdbConnection(chdbPathIn(dataDir), database ?? 'default'),
};

/** Runs `work` on a connection, closed after (chDB's directory is then free for another process). */
export async function using<T>(connection: ClickHouseConnection, work: (c: ClickHouseConnection) => Promise<T>): Promise<T> {
  try {
    return await work(connection);
  } finally {
    await connection.close?.();
  }
}
