import type { Worker } from 'node:worker_threads';
import { replyFrom, startTsWorker } from '../threads';
import { refusalError, type SliceOutcome } from './batch-slices';
import type { FromDecodeThread, ToDecodeThread } from './decode-messages';
import type { FormHints, FormOutcome } from './form-body';
import type { Lz64Outcome } from './lz64-bounded';

export type Lz64BytesOutcome = { ok: true; bytes: Buffer } | Exclude<Lz64Outcome, { ok: true }>;

/** A job as sent, without its id (DistributiveOmit keeps the union's members apart). */
type Job = ToDecodeThread extends infer M ? (M extends ToDecodeThread ? Omit<M, 'id'> : never) : never;

/**
 * Threads that decode large bodies off the event loop (decode-thread.ts: lz64, large JSON), started on first use and kept (starting one costs
 * ~0.3 s of loading, far more than most bodies). At most `size` exist, one job each: the caller's
 * gate (decompression-gate.ts) never asks for more at once. Idle threads are unreferenced, so they
 * never keep the process alive; a thread that dies fails its job and is replaced on the next one.
 */
export class DecodeThreads {
  private readonly idle: Worker[] = [];
  /** Per idle thread, the listener that drops it should it die while idle. */
  private readonly dropOnExit = new Map<Worker, () => void>();
  private nextId = 1;

  /** A gzip body inflated (at most `maxBytes`), as the thread sent it (uncopied); rejects with the IngestError it refused with. */
  async gunzip(bytes: Uint8Array, maxBytes: number): Promise<Buffer> {
    // The request's body stays the caller's: the thread gets a copy.
    const sent = new Uint8Array(bytes);
    const reply = await this.run({ job: 'gunzip', bytes: sent, maxBytes }, [sent.buffer]);
    if ('sliced' in reply || 'form' in reply) throw new Error('decode thread: unexpected reply');
    if (reply.ok) return Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength);
    if ('refusal' in reply) throw refusalError(reply.refusal);
    throw new Error(`decode thread: ${reply.reason === 'failed' ? reply.detail : reply.reason}`);
  }

  /** lz64 text to the JSON text as UTF-8 bytes (as the thread sent them, uncopied), or why there is none. */
  async inflateLz64(text: string, maxBytes: number): Promise<Lz64BytesOutcome> {
    const reply = await this.run({ job: 'lz64', text, maxBytes }, []);
    if ('sliced' in reply || 'form' in reply) throw new Error('decode thread: unexpected reply');
    if (reply.ok) return { ok: true, bytes: Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength) };
    if ('refusal' in reply) throw refusalError(reply.refusal);
    if (reply.reason === 'failed') throw new Error(`decode thread: ${reply.detail}`);
    return { ok: false, reason: reply.reason };
  }

  /**
   * A large JSON body to its sliced batch (batch-slices.ts). With `handOver`, bytes that own their
   * buffer are transferred (the caller must not use them afterwards); otherwise they are copied.
   */
  async sliceBatch(bytes: Uint8Array, handOver: boolean): Promise<SliceOutcome> {
    const owns = handOver && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
    const sent = owns ? bytes : new Uint8Array(bytes);
    const reply = await this.run({ job: 'slice', bytes: sent }, [sent.buffer as ArrayBuffer]);
    if ('sliced' in reply) return reply.sliced;
    throw new Error(`decode thread: ${reply.ok ? 'unexpected reply' : 'refusal' in reply ? reply.refusal.detail : reply.reason === 'failed' ? reply.detail : reply.reason}`);
  }

  /** A large form body decoded (form-body.ts); rejects with the IngestError the thread refused with. The body is copied, not taken. */
  async decodeForm(bytes: Uint8Array, hints: FormHints): Promise<FormOutcome> {
    const sent = new Uint8Array(bytes);
    const reply = await this.run({ job: 'form', bytes: sent, hints }, [sent.buffer]);
    if ('form' in reply) return reply.form;
    if (!reply.ok && 'refusal' in reply) throw refusalError(reply.refusal);
    throw new Error(`decode thread: ${reply.ok ? 'unexpected reply' : reply.reason === 'failed' ? reply.detail : reply.reason}`);
  }

  private async run(job: Job, transfer: ArrayBuffer[]): Promise<FromDecodeThread> {
    const thread = this.takeIdle() ?? startTsWorker(new URL('./decode-thread.ts', import.meta.url), {});
    thread.ref();
    const id = this.nextId++;
    let reply: FromDecodeThread;
    try {
      reply = await replyFrom<FromDecodeThread>(thread, id, 'decode thread', () => thread.postMessage({ ...job, id } satisfies ToDecodeThread, transfer));
    } catch (error) {
      void thread.terminate();
      throw error;
    }
    this.putIdle(thread);
    return reply;
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
