import { Worker } from 'node:worker_threads';

/** A worker thread running a TypeScript module (boot.mjs registers tsx's loader in it first). */
export function startTsWorker(entry: URL, data: object): Worker {
  return new Worker(new URL('./boot.mjs', import.meta.url), { workerData: { ...data, entry: entry.href } });
}
