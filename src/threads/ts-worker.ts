import { Worker } from 'node:worker_threads';

/**
 * A worker thread running a module of the service. Under tsx (development, tests) the entry is a
 * TypeScript file, and boot.mjs registers tsx's loader in the thread first (threads do not inherit
 * it). In the build (dist/, `npm start`) the entry is already JavaScript and runs directly.
 */
export function startTsWorker(entry: URL, data: object): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData: data });
  return new Worker(new URL('./boot.mjs', import.meta.url), { workerData: { ...data, entry: entry.href } });
}
