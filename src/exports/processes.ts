import type { Config } from '../config';
import type { BatchExports } from './index';
import { workerInstance } from './worker/instance';

interface Logger {
  error(obj: { err: Error }, msg: string): void;
}

/**
 * The scheduler loop and the export worker of `npm start`, configured from the environment.
 * Returns how to stop them (before the runtime closes: running attempts stop at their next
 * batch and are left due for an immediate retry).
 */
export function startExportProcesses(exports: BatchExports, options: { config: Config; logger: Logger }) {
  const { config, logger } = options;
  if (!config.EXPORTS_ENABLED) return { stop: async () => {} };
  const scheduler = exports.scheduler({ onError: (err) => logger.error({ err }, 'batch export scheduler tick failed') });
  const worker = exports.worker({
    // Recorded in each RunStarted; runs an earlier start of this installation left Running are taken over at once.
    instance: workerInstance(config.DATA_DIR),
    settings: {
      concurrency: config.EXPORT_WORKER_CONCURRENCY,
      maxAttempts: config.EXPORT_MAX_ATTEMPTS,
      retryBaseMs: config.EXPORT_RETRY_BASE_MS,
      leaseMs: config.EXPORT_LEASE_MS,
    },
    onError: (err) => logger.error({ err }, 'batch export worker failed'),
  });
  scheduler.start(config.EXPORT_SCHEDULER_INTERVAL_MS);
  worker.start(config.EXPORT_WORKER_POLL_MS);
  return {
    scheduler,
    worker,
    async stop() {
      await scheduler.stop();
      await worker.stop();
    },
  };
}
