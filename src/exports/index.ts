import {
  EXPORT_PROJECTIONS,
  batchExportLogQueries,
  batchExportQueries,
  batchExportRunQueries,
} from '../../projections/exports';
import type { SqlSession } from '../store/sql';
import type { EventLog } from '../store/event-log';
import { ExportScheduler, type SchedulerDeps } from './scheduler/scheduler';
import { BatchExportService } from './service/batch-export-service';
import type { WorkerSettings } from './worker/attempt';
import { ExportWorker } from './worker/worker';
import type { ExportSource } from './worker/export-source';
import type { SecretBox } from './secrets';
import type { WorkerInstance } from './worker/instance';
import type { ExportPolicy } from './policy';

export { BatchExportService } from './service/batch-export-service';
export { ExportScheduler, type TickResult } from './scheduler/scheduler';
export { dueIntervals, dueBackfillIntervals } from './scheduler/due';
export { ExportWorker, DEFAULT_WORKER_SETTINGS } from './worker/worker';
export type { WorkerSettings } from './worker/attempt';
export { workerInstance, type WorkerInstance } from './worker/instance';
export { scheduledRunId, backfillRunId } from './model/ids';
export { INTERVAL_MS } from './model/intervals';
export { exportPolicy, exportPolicyFromConfig, type ExportPolicy } from './policy';

export interface BatchExportsDeps {
  log: EventLog;
  /** The read-model store: exports, runs and logs, and the analytics tables the worker reads. */
  readmodels: SqlSession;
  runner: { waitFor(position: number, names?: readonly string[] | null): Promise<void> };
  now?: () => Date;
  /** The analytics port's adapter, built by the composition root for its analytics store. */
  exportSource: ExportSource;
  /** Seals and opens destination secrets (key from the data directory). */
  secrets: SecretBox;
  /** Export root, network policy and backfill cap (from the configuration). */
  policy: ExportPolicy;
}

/**
 * Batch exports over the runtime's log and read models: the service the API calls, and
 * factories for the scheduler loop and the export worker (which `npm start` runs, and tests
 * drive with their own clock).
 */
export function openBatchExports(deps: BatchExportsDeps) {
  const now = deps.now ?? (() => new Date());
  const queries = {
    exports: batchExportQueries(deps.readmodels),
    runs: batchExportRunQueries(deps.readmodels),
    logs: batchExportLogQueries(deps.readmodels),
  };
  const waitFor = (position: number) => deps.runner.waitFor(position, EXPORT_PROJECTIONS);
  const service = new BatchExportService({ log: deps.log, exports: queries.exports, runs: queries.runs, waitFor, now, secrets: deps.secrets, policy: deps.policy });
  return {
    queries,
    service,
    secrets: deps.secrets,
    scheduler(options: { now?: () => Date; batchLimit?: number; onError?: SchedulerDeps['onError'] } = {}) {
      return new ExportScheduler({ log: deps.log, exports: queries.exports, waitFor, now: options.now ?? now, batchLimit: options.batchLimit, onError: options.onError });
    },
    worker(options: {
      now?: () => Date;
      settings?: Partial<WorkerSettings>;
      onError?: (err: Error) => void;
      instance?: WorkerInstance;
    }) {
      return new ExportWorker({
        log: deps.log,
        exports: queries.exports,
        runs: queries.runs,
        waitFor,
        waitForIngestion: (position) => deps.runner.waitFor(position, ['ingestion']),
        source: deps.exportSource,
        secrets: deps.secrets,
        policy: deps.policy,
        now: options.now ?? now,
        settings: options.settings,
        onError: options.onError,
        instance: options.instance,
      });
    },
  };
}

export type BatchExports = ReturnType<typeof openBatchExports>;
