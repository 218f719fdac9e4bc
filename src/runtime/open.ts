import { join } from 'node:path';
import { contracts } from '../../streams';
import { accessQueries, allProjections, type Projection, type StoreName } from '../../projections';
import { AccessService } from '../access';
import { ContractedEventLog } from '../store/contracted-log';
import { SqliteEventLog } from '../store/sqlite/event-log';
import { openSqlite, type Durability, type SqliteDatabase } from '../store/sqlite/open';
import { cachedStore } from './cached-store';
import { ProjectionRunner } from './projection-runner';

export interface RuntimeOptions {
  dataDir: string;
  durability?: Durability;
  /** Where read models live; defaults to dataDir (replay points this at a fresh directory). */
  readModelDir?: string;
  projections?: readonly Projection[];
  now?: () => Date;
  onProjectionError?: (name: string, err: Error) => void;
}

export const storeFiles = (dir: string): Record<StoreName, string> & { log: string } => ({
  log: join(dir, 'events.sqlite'),
  readmodels: join(dir, 'readmodels.sqlite'),
  analytics: join(dir, 'analytics.sqlite'),
});

/** The embedded runtime: one SQLite log, SQLite read-model stores, the projection runner and the services. */
export function openRuntime(options: RuntimeOptions) {
  const files = storeFiles(options.dataDir);
  const modelFiles = storeFiles(options.readModelDir ?? options.dataDir);
  const rawLog = new SqliteEventLog(files.log, { durability: options.durability, now: options.now });
  const log = new ContractedEventLog(rawLog, contracts);
  const stores: Record<StoreName, SqliteDatabase> = {
    readmodels: openSqlite(modelFiles.readmodels, { durability: options.durability }),
    analytics: openSqlite(modelFiles.analytics, { durability: options.durability }),
  };
  const projections = options.projections ?? allProjections;
  const runner = new ProjectionRunner(log, stores, projections, { onError: options.onProjectionError });
  const readmodels = cachedStore(stores.readmodels);
  const queries = { access: accessQueries(readmodels) };
  const access = new AccessService({ log, queries: queries.access, waitFor: (p) => runner.waitFor(p, ['access']) });
  return {
    files,
    log,
    rawLog,
    stores,
    runner,
    queries,
    access,
    async close() {
      runner.stop();
      await log.close();
      stores.readmodels.close();
      stores.analytics.close();
    },
  };
}

export type Runtime = ReturnType<typeof openRuntime>;
