import type { Worker } from 'node:worker_threads';
import { startTsWorker } from '../threads';
import type { Lz64Outcome } from './lz64-bounded';

export type Lz64BytesOutcome = { ok: true; bytes: Buffer } | Exclude<Lz64Outcome, { ok: true }>;
import type { FromLz64Thread, ToLz64Thread } from './lz64-messages';

/**
 * Threads that inflate lz64 off the event loop, started on first use and kept (starting one costs
 * ~0.3 s of loading, far more than most bodies). At most `size` exist, one job each: the caller's
 * gate (decompression-gate.ts) never asks for more at once. Idle threads are unreferenced, so they
 * never keep the process alive; a thread that dies fails its job and is replaced on the next one.
 */
export class Lz64Threads {
  private readonly idle: Worker[] = [];
  /** Per idle thread, the listener that drops it should it die while idle. */
  private readonly dropOnExit = new Map<Worker, () => void>();
  private nextId = 1;

  /** The JSON text as UTF-8 bytes (as the thread sent them, uncopied), or why there is none. */
  async inflate(text: string, maxBytes: number): Promise<Lz64BytesOutcome> {
    const thread = this.takeIdle() ?? startTsWorker(new URL('./lz64-thread.ts', import.meta.url), {});
    thread.ref();
    const id = this.nextId++;
    let reply: FromLz64Thread;
    try {
      reply = await new Promise<FromLz64Thread>((resolve, reject) => {
        const onMessage = (message: FromLz64Thread) => {
          if (message.id !== id) return;
          cleanup();
          resolve(message);
        };
        const onError = (error: Error) => {
          cleanup();
          reject(error);
        };
        const onExit = (code: number) => onError(new Error(`lz64 thread exited (${code})`));
        const cleanup = () => {
          thread.off('message', onMessage);
          thread.off('error', onError);
          thread.off('exit', onExit);
        };
        thread.on('message', onMessage);
        thread.on('error', onError);
        thread.on('exit', onExit);
        thread.postMessage({ id, text, maxBytes } satisfies ToLz64Thread);
      });
    } catch (error) {
      void thread.terminate();
      throw error;
    }
    this.putIdle(thread);
    if (reply.ok) return { ok: true, bytes: Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength) };
    if (reply.reason === 'failed') throw new Error(`lz64 thread: ${reply.detail}`);
    return { ok: false, reason: reply.reason };
  }

  private takeIdle(): Worker | undefined {
    const thread = this.idle.pop();
    if (thread !== undefined) {
      thread.off('exit', this.dropOnExit.get(thread)!);
      this.dropOnExit.delete(thread);
    }
    return thread;
  }

  /** Kept unreferenced; one that dies while idle is dropped, not handed a job it would never answer. */
  private putIdle(thread: Worker): void {
    thread.unref();
    const drop = () => {
      this.dropOnExit.delete(thread);
      const at = this.idle.indexOf(thread);
      if (at !== -1) this.idle.splice(at, 1);
    };
    this.dropOnExit.set(thread, drop);
    thread.once('exit', drop);
    this.idle.push(thread);
  }

  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((t) => t.terminate()));
  }
}
