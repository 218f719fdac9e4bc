import type { StartedRole } from '../runtime/leased-role';
import { startTsWorker } from '../threads';
import type { FromIngestWorker, IngestWorkerData, ToIngestWorker } from './ingest-worker';

/** How long a stopping thread may take to finish the message in progress before it is terminated. */
const STOP_GRACE_MS = 15_000;

/**
 * The `ingest` role on a thread of its own (ingest-worker.ts). Resolves once its consumers run;
 * `appended` hears each append it commits (the main thread's projections follow this process's log
 * handle, not the thread's), `onError` what the consumers report.
 */
export function startIngestThread(data: IngestWorkerData, appended: (position: number) => void, onError: (message: string, err: unknown) => void): Promise<StartedRole> {
  const worker = startTsWorker(new URL('./ingest-worker.ts', import.meta.url), data);
  let stopping: Promise<void> | null = null;
  const role: StartedRole = {
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.postMessage({ type: 'stop' } satisfies ToIngestWorker);
        setTimeout(() => void worker.terminate(), STOP_GRACE_MS).unref();
      });
      return stopping;
    },
  };
  return new Promise((resolve, reject) => {
    worker.on('message', (m: FromIngestWorker) => {
      if (m.type === 'ready') resolve(role);
      else if (m.type === 'failed') reject(new Error(`the ingest role could not start: ${m.message}`));
      else if (m.type === 'appended') appended(m.position);
      else if (m.type === 'error') onError(m.message, new Error(m.detail));
    });
    worker.once('error', (err) => {
      reject(err);
      onError('the ingest thread crashed', err);
    });
    worker.once('exit', (code) => {
      if (stopping) return;
      reject(new Error(`the ingest thread exited with code ${code}`));
      onError(`the ingest thread exited with code ${code}: nothing more is appended from NATS until a restart`, null);
    });
  });
}
