// Worker-thread entry of the projection runner: opens this thread's own handles on the log and the
// read-model stores from plain data, then hands them to the runtime's side (which sees ports only).
import { parentPort, workerData } from 'node:worker_threads';
import { contracts } from '../../streams';
import { allProjections } from '../../projections';
import { type StoreName } from '../store/read-model-projection';
import { serveProjections } from '../runtime/worker/projection-worker';
import { ContractedEventLog } from '../store/contracted-log';
import { openSqlite, type Durability, type SqliteDatabase } from '../adapters/sqlite/open';
import { niceThisThread } from '../threads';
import { SqliteReadModelStore } from '../adapters/sqlite/read-models';
import { openLogFromSpec, type EventLogSpec } from './event-log';
import type { ReadModelsSpec } from './read-models';
import { ChangeRecorder } from '../runtime/change-log';
import type { ReadModelStore } from '../store/read-models';

/** The data the main thread passes (see open-runtime.ts). */
export interface ProjectionWorkerData {
  log: EventLogSpec;
  readModels: ReadModelsSpec;
  /** Record what each batch changed for the processes that follow shared read models (see change-log.ts). */
  recordChanges?: boolean;
  durability?: Durability;
  /** CPU niceness of this thread (0: unchanged). */
  nice?: number;
  /** When set, another thread checkpoints the read-model stores: commits here only past this many WAL pages. */
  backstopCheckpointPages?: number;
}

// The main thread imports this module's types only (erased): the body below runs in the thread.
if (parentPort) {
  const config = workerData as ProjectionWorkerData;
  niceThisThread(config.nice ?? 0);
  const opened = await openLogFromSpec(config.log);
  const log = new ContractedEventLog(opened.log, contracts);
  const models = await openReadModels(config);
  serveProjections(parentPort, {
    log,
    notifications: opened.notifications,
    stores: models.stores,
    projections: allProjections,
    changes: config.recordChanges ? new ChangeRecorder() : undefined,
    async close() {
      await log.close();
      await models.close();
    },
  });
}

async function openReadModels(config: ProjectionWorkerData): Promise<{ stores: Record<StoreName, ReadModelStore>; close(): Promise<void> }> {
  const spec = config.readModels;
  if (spec.kind === 'postgres') {
    const { PostgresReadModelStore } = await import('../adapters/postgres/read-models');
    const store = await PostgresReadModelStore.open({ connection: spec.url, schema: spec.schema });
    return { stores: { readmodels: store }, close: () => store.close() };
  }
  const open = (file: string) => openSqlite(file, { durability: config.durability, autoCheckpointPages: config.backstopCheckpointPages });
  const dbs: Record<StoreName, SqliteDatabase> = { readmodels: open(spec.files.readmodels) };
  return {
    stores: { readmodels: new SqliteReadModelStore(dbs.readmodels) },
    async close() {
      dbs.readmodels.close();
    },
  };
}
