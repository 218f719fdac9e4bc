import { startTsWorker } from '../threads';
import type { CountedProgress, DigestReport } from './replay';
import type { FromReplayWorker, ReplayWorkerData } from './replay-worker';

/**
 * A replay to `toPosition` on a thread of its own (replay-worker.ts): `digests` resolves with its
 * digests, and rejects when the replay fails or the thread ends without an answer (`stop` ends it).
 */
export function replayOnThread(data: ReplayWorkerData, onProgress?: CountedProgress): { digests: Promise<DigestReport[]>; stop(): Promise<void> } {
  const worker = startTsWorker(new URL('./replay-worker.ts', import.meta.url), data);
  const digests = new Promise<DigestReport[]>((resolve, reject) => {
    let settled = false;
    worker.on('message', (m: FromReplayWorker) => {
      if (m.type === 'progress') onProgress?.(m.position, m.head, m.events);
      else {
        settled = true;
        if (m.type === 'done') resolve(m.digests);
        else reject(new Error(m.message));
      }
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the replay thread exited with code ${code} before it answered`));
    });
  });
  return {
    digests,
    async stop() {
      await worker.terminate();
    },
  };
}
