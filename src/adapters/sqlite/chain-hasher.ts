import type { Worker } from 'node:worker_threads';
import { CHAIN_START, type SharedContent } from '../../store/hash-chain';
import { startTsWorker } from '../../threads';
import { inlineChain, inlineHashes, type AppendHashes, type PendingChain } from './append-chain';
import { HASH_BYTES } from './chain-hashes';
import { FIRST_REVISION_OFFSET, HASHES_OFFSET, PREV_OFFSET, SLOT, START, type ChainJob, type ChainRecords } from './chain-messages';

/**
 * From this many records an append's chain is hashed on the chain thread: below it, sending the
 * records and waking the thread cost about what hashing them here does. (One large record gains
 * nothing there: its row is inserted faster than it is hashed, and the commit must follow both.)
 */
export const CHAIN_THREAD_MIN_RECORDS = 64;

/** Past this wait for the thread's hashes it is taken for lost and the append hashes the rest itself. */
const STALL_MS = 2000;

/** Thread starts after which a failing thread is not started again: the log hashes in line. */
const MAX_STARTS = 3;

/**
 * The chain of a batched append is hashed on a thread of its own while the append's transaction
 * inserts the rows. The records cross to the thread before the transaction takes the write lock;
 * under it, the transaction reads the predecessor's hash (the chain's critical section stays the
 * write lock) and hands it over through shared memory, inserts the rows, then takes the hashes the
 * thread wrote meanwhile and stores them in one row (chain-hashes.ts).
 * The thread starts on the first batch large enough (or `warm`) and serves once it is up.
 */
export class ChainHasher {
  constructor(private readonly options: { stallMs?: number } = {}) {}

  private thread: Worker | undefined;
  private ready = false;
  /** Appends hashed on the thread, appends whose thread was lost midway (hashed here from there), threads started. */
  readonly counts = { onThread: 0, lost: 0, started: 0 };
  /** The records' texts for the thread, reused from append to append (one job runs at a time). */
  private texts = new SharedArrayBuffer(0);
  /** Settles when the thread started last is ready (true) or gone (false). */
  private started: Promise<boolean> = Promise.resolve(false);

  /** Starts the thread now rather than on the first batch large enough; resolves whether it serves. */
  warm(): Promise<boolean> {
    if (this.ready) return Promise.resolve(true);
    // No thread and none may start any more: the last one's answer is stale.
    if (!this.thread && !this.start()) return Promise.resolve(false);
    return this.started;
  }

  prepare(shared: SharedContent, records: ChainRecords): PendingChain {
    if (records.data.length < CHAIN_THREAD_MIN_RECORDS) return inlineChain(shared, records);
    const thread = this.thread ?? this.start();
    if (!thread || !this.ready) return inlineChain(shared, records);
    const sab = new SharedArrayBuffer(HASHES_OFFSET + HASH_BYTES * records.data.length);
    const ends = this.encode(records.data);
    const texts = this.texts;
    thread.postMessage({ sab, shared, kinds: kindsOf(records), texts, ends, eventIds: records.eventIds } satisfies ChainJob);
    const slots = new Int32Array(sab, 0, 4);
    return {
      // Bound as a view of the shared texts: SQLite copies a bound value, so the next append may reuse them.
      stored: (k) => {
        const start = k === 0 ? 0 : ends[k - 1];
        return Buffer.from(texts, start, ends[k] - start);
      },
      start: (prev, firstRevision) => {
        if (prev !== CHAIN_START) {
          Buffer.from(sab, PREV_OFFSET, HASH_BYTES).write(prev, 'hex');
          slots[SLOT.hasPrev] = 1;
        }
        new Float64Array(sab, FIRST_REVISION_OFFSET, 1)[0] = firstRevision;
        Atomics.store(slots, SLOT.start, START.go);
        Atomics.notify(slots, SLOT.start);
        this.counts.onThread++;
        return threadHashes(sab, prev, shared, records, firstRevision, this.options.stallMs ?? STALL_MS, () => {
          this.counts.lost++;
          this.drop(thread);
        });
      },
      cancel: () => {
        if (Atomics.compareExchange(slots, SLOT.start, START.waiting, START.cancelled) === START.waiting) Atomics.notify(slots, SLOT.start);
      },
    };
  }

  /**
   * Writes each record's data into `texts` as UTF-8, one after the other, growing it as needed;
   * returns where each ends (ChainJob.ends).
   */
  private encode(data: ChainRecords['data']): Int32Array {
    let bound = 0;
    // Stryker disable next-line ConditionalExpression: equivalent, only how much is allocated
    for (const d of data) bound += typeof d === 'string' ? d.length * 3 : d.length;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: equivalent, only how much is allocated and how often
    if (this.texts.byteLength < bound) this.texts = new SharedArrayBuffer(Math.max(bound, this.texts.byteLength * 2));
    const texts = new Uint8Array(this.texts);
    const ends = new Int32Array(data.length);
    let at = 0;
    for (let k = 0; k < data.length; k++) {
      const d = data[k];
      if (typeof d === 'string') at += encoder.encodeInto(d, texts.subarray(at)).written;
      else {
        texts.set(d, at);
        at += d.length;
      }
      ends[k] = at;
    }
    return ends;
  }

  private start(): Worker | undefined {
    if (this.counts.started >= MAX_STARTS) return undefined;
    this.counts.started++;
    const thread = startTsWorker(new URL('./chain-thread.ts', import.meta.url), {});
    // Never what keeps a process alive: an append waits on it synchronously, not the event loop.
    thread.unref();
    this.started = new Promise<boolean>((resolve) => {
      thread.once('message', () => {
        if (this.thread === thread) this.ready = true;
        resolve(this.ready);
      });
      thread.once('error', () => resolve(false));
      thread.once('exit', () => resolve(false));
    });
    thread.once('error', () => this.drop(thread));
    thread.once('exit', () => this.drop(thread));
    this.thread = thread;
    return thread;
  }

  private drop(thread: Worker): void {
    if (this.thread !== thread) return;
    this.thread = undefined;
    this.ready = false;
    void thread.terminate();
  }

  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = undefined;
    this.ready = false;
    if (thread) await thread.terminate();
  }
}

/** Hashes written by the thread; from the first one it fails or stalls on, hashed in line. */
function threadHashes(
  sab: SharedArrayBuffer,
  prev: string,
  shared: SharedContent,
  records: ChainRecords,
  firstRevision: number,
  stallMs: number,
  lost: () => void,
): AppendHashes {
  const slots = new Int32Array(sab, 0, 4);
  const n = records.data.length;
  const hashes = Buffer.from(sab, HASHES_OFFSET, HASH_BYTES * n);
  return {
    kind: 'append',
    all() {
      let written = Atomics.load(slots, SLOT.written);
      while (written < n && Atomics.load(slots, SLOT.failed) === 0) {
        if (Atomics.wait(slots, SLOT.written, written, stallMs) === 'timed-out' && Atomics.load(slots, SLOT.written) === written) break;
        written = Atomics.load(slots, SLOT.written);
      }
      if (written >= n) return hashes;
      lost();
      const before = written === 0 ? prev : hashes.toString('hex', (written - 1) * HASH_BYTES, written * HASH_BYTES);
      return inlineHashes(before, shared, records, firstRevision, hashes, written);
    },
  };
}

const encoder = new TextEncoder();

function kindsOf(records: ChainRecords): ChainJob['kinds'] {
  const kinds: ChainJob['kinds'] = [];
  let run: ChainJob['kinds'][number] | undefined;
  // Stryker disable next-line EqualityOperator: equivalent, a run past the last record is never read
  for (let k = 0; k < records.types.length; k++) {
    const type = records.types[k];
    const schemaVersion = records.schemaVersions[k];
    // Stryker disable next-line ConditionalExpression: equivalent, runs of one record each read the same
    if (run && run.type === type && run.schemaVersion === schemaVersion) run.count++;
    else kinds.push((run = { type, schemaVersion, count: 1 }));
  }
  return kinds;
}

