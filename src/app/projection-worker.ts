// Worker-thread entry of the projection runner: opens this thread's own handles on the log and the
// read-model stores from plain data, then hands them to the runtime's side (which sees ports only).
import { parentPort, workerData } from 'node:worker_threads';
import { contracts } from '../../streams';
import { allProjections, type StoreName } from '../../projections';
import { serveProjections } from '../runtime/worker/projection-worker';
import { ContractedEventLog } from '../store/contracted-log';
import { openSqlite, type Durability, type SqliteDatabase } from '../store/sqlite/open';
import { niceThisThread } from '../threads';
import { SqliteReadModelStore } from '../adapters/sqlite/read-models';
import { openLogFromSpec, type EventLogSpec } from './event-log';

/** The data the main thread passes (see open-runtime.ts). */
export interface ProjectionWorkerData {
  log: EventLogSpec;
  /** The read-model store files. */
  stores: Record<StoreName, string>;
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
  const open = (file: string) => openSqlite(file, { durability: config.durability, autoCheckpointPages: config.backstopCheckpointPages });
  const stores: Record<StoreName, SqliteDatabase> = { readmodels: open(config.stores.readmodels), analytics: open(config.stores.analytics) };
  const log = new ContractedEventLog(opened.log, contracts);
  serveProjections(parentPort, {
    log,
    notifications: opened.notifications,
    stores: { readmodels: new SqliteReadModelStore(stores.readmodels), analytics: new SqliteReadModelStore(stores.analytics) },
    projections: allProjections,
    async close() {
      await log.close();
      stores.readmodels.close();
      stores.analytics.close();
    },
  });
}
