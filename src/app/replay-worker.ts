// Worker-thread entry of a replay (replay-thread.ts): rebuilds every read model from the log into a
// fresh store on a thread of its own, so `verify` folds the live read models on the main thread
// meanwhile. The thread opens its own handles (log, fresh store) from plain data.
import { parentPort, workerData } from 'node:worker_threads';
import type { EventLogChoice } from '../config/event-log';
import { countingEvents, rebuild, type DigestReport } from './replay';

export interface ReplayWorkerData {
  dataDir: string;
  /** The fresh store's directory (the main thread removes it once done with the thread). */
  outDir: string;
  /** The last position folded (the same for every projection). */
  toPosition: number;
  eventLog: EventLogChoice;
}

export type FromReplayWorker =
  | { type: 'progress'; position: number; head: number; events: number }
  | { type: 'done'; digests: DigestReport[] }
  | { type: 'failed'; message: string };

// The main thread imports this module's types only (erased): the body below runs in the thread.
if (parentPort) {
  const port = parentPort;
  const data = workerData as ReplayWorkerData;
  const send = (m: FromReplayWorker) => port.postMessage(m);
  try {
    const { digests } = await rebuild(data.dataDir, {
      outDir: data.outDir,
      toPosition: data.toPosition,
      eventLog: data.eventLog,
      onProgress: countingEvents((position, head, events) => send({ type: 'progress', position, head, events })),
    });
    send({ type: 'done', digests });
  } catch (err) {
    send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  }
}
