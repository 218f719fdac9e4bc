import type { Worker } from 'node:worker_threads';
import type { StartedRole } from '../runtime/leased-role';
import { startTsWorker } from '../threads';
import type { FromIngestWorker, IngestWorkerData, ToIngestWorker } from './ingest-worker';

/** How long a stopping thread may take to finish the message in progress before it is terminated. */
const STOP_GRACE_MS = 15_000;
/** After a thread ended unasked, the wait before the next one starts. */
const RESTART_MS = 1000;

export interface IngestThreadSupervision {
  /** Starts the thread (tests hold the workers they start). */
  launch?: (entry: URL, data: IngestWorkerData) => Worker;
  restartMs?: number;
}

/**
 * The `ingest` role on a thread of its own (ingest-worker.ts). Resolves once its consumers run;
 * `appended` hears each append it commits (the main thread's projections follow this process's log
 * handle, not the thread's), `onError` what the consumers report. A thread that ends unasked (a
 * crash) is started again after a pause: the messages it held are delivered again once their ack
 * wait passes, and appended once (the idempotent append).
 */
export async function startIngestThread(
  data: IngestWorkerData,
  appended: (position: number) => void,
  onError: (message: string, err: unknown) => void,
  options: IngestThreadSupervision = {},
): Promise<StartedRole> {
  const launch = options.launch ?? ((entry, workerData) => startTsWorker(entry, workerData));
  let stopping = false;
  let restart: NodeJS.Timeout | undefined;
  let current: Worker | undefined;

  const start = () =>
    new Promise<Worker>((resolve, reject) => {
      const worker = launch(new URL('./ingest-worker.ts', import.meta.url), data);
      let ready = false;
      worker.on('message', (m: FromIngestWorker) => {
        if (m.type === 'ready') {
          ready = true;
          resolve(worker);
        } else if (m.type === 'failed') reject(new Error(`the ingest role could not start: ${m.message}`));
        else if (m.type === 'appended') appended(m.position);
        else if (m.type === 'error') onError(m.message, new Error(m.detail));
      });
      worker.once('error', (err) => {
        if (!ready) reject(err);
        else onError('the ingest thread crashed', err);
      });
      worker.once('exit', (code) => {
        if (!ready) {
          reject(new Error(`the ingest thread exited with code ${code} before it started`));
          return;
        }
        if (stopping || worker !== current) return;
        onError(`the ingest thread exited with code ${code}: starting it again`, null);
        current = undefined;
        restart = setTimeout(again, options.restartMs ?? RESTART_MS);
      });
    });

  const again = () => {
    restart = undefined;
    start().then(
      (worker) => {
        if (stopping) void stopWorker(worker);
        else current = worker;
      },
      (err) => {
        onError('the ingest thread could not start again: trying later', err);
        if (!stopping) restart = setTimeout(again, options.restartMs ?? RESTART_MS);
      },
    );
  };

  current = await start();
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopping = true;
      clearTimeout(restart);
      stopped ??= current ? stopWorker(current) : Promise.resolve();
      return stopped;
    },
  };
}

function stopWorker(worker: Worker): Promise<void> {
  return new Promise<void>((resolve) => {
    worker.once('exit', () => resolve());
    worker.postMessage({ type: 'stop' } satisfies ToIngestWorker);
    setTimeout(() => void worker.terminate(), STOP_GRACE_MS).unref();
  });
}
