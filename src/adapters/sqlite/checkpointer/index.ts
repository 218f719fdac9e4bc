import type { Worker } from 'node:worker_threads';
import { startTsWorker } from '../../../threads';
import type { CheckpointerSetup } from './thread';

export type { CheckpointerSetup };

export interface Checkpointer {
  close(): Promise<void>;
}

/**
 * Copies the WAL of each file back into it from a thread of its own, at a low CPU priority. The
 * threads that write (request appends, projection folds) then only append to their WALs: a
 * checkpoint inside their commits cost the fold a sixth of its time, and its fsync waited in line.
 * Under a burst the copying waits for an idle core; the writers' own automatic checkpoints, set
 * far higher than usual, bound the WALs if it never gets one.
 */
export function startCheckpointer(setup: CheckpointerSetup): Checkpointer {
  const worker: Worker = startTsWorker(new URL('./thread.ts', import.meta.url), setup);
  worker.unref();
  // A thread that cannot open its files ends: the writers' own backstop checkpoints bound their WALs
  // then, and the process goes on (an unheard 'error' would end it).
  worker.on('error', () => undefined);
  let closed: Promise<void> | null = null;
  return {
    close() {
      closed ??= new Promise<void>((resolve) => {
        // Held while it stops: the caller awaiting the close may be all that is left to run.
        worker.ref();
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
        setTimeout(() => void worker.terminate(), 5000).unref();
      });
      return closed;
    },
  };
}
