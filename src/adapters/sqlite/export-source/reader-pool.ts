import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startTsWorker } from '../../../threads';

/**
 * Reader threads kept between export runs. Starting one (it loads the code, then opens the file)
 * took ~0.4 s, a tenth of a million-row run; a pooled one starts a run with a message. Idle
 * threads are unreferenced, so they never keep the process alive, and at most one per core is
 * kept; a run that ends abnormally discards its threads instead of returning them.
 */
export class ReaderPool {
  private readonly idle: Worker[] = [];

  /** Only the events runs listen to: a Worker's own 'newListener' hooks must stay. */
  private static forget(reader: Worker): void {
    for (const event of ['message', 'error', 'exit']) reader.removeAllListeners(event);
  }

  constructor(private readonly maxIdle = availableParallelism()) {}

  /** Thread ids of the idle readers, oldest first. */
  idleThreadIds(): number[] {
    return this.idle.map((r) => r.threadId);
  }

  /** `n` readers for one run: idle ones first, then new ones. */
  acquire(n: number): Worker[] {
    const readers = this.idle.splice(0, n);
    for (const reader of readers) ReaderPool.forget(reader);
    while (readers.length < n) readers.push(startTsWorker(new URL('./reader-thread.ts', import.meta.url), {}));
    for (const reader of readers) reader.ref();
    return readers;
  }

  /** Readers whose run finished normally (no slice in progress, every page acknowledged). */
  release(readers: Worker[]): void {
    for (const reader of readers) {
      ReaderPool.forget(reader);
      if (this.idle.length < this.maxIdle) {
        reader.unref();
        // An idle reader that dies is dropped from the pool, not handed to the next run.
        reader.once('exit', () => {
          const at = this.idle.indexOf(reader);
          if (at !== -1) this.idle.splice(at, 1);
        });
        this.idle.push(reader);
      } else void reader.terminate();
    }
  }

  async discard(readers: Worker[]): Promise<void> {
    for (const reader of readers) ReaderPool.forget(reader);
    await Promise.all(readers.map((r) => r.terminate()));
  }
}

/** One pool per process: runs of every export source draw on it. */
export const readerPool = new ReaderPool();
