// Worker-thread entry: hashes an append's chain while the append's transaction inserts its rows
// (chain-hasher.ts).
import { parentPort } from 'node:worker_threads';
import { appendChain, CHAIN_START } from '../../store/hash-chain';
import { HASH_BYTES } from './chain-hashes';
import { FIRST_REVISION_OFFSET, HASHES_OFFSET, PREV_OFFSET, SLOT, START, type ChainJob } from './chain-messages';

/** Texts up to this many bytes are decoded to hash them in one call. */
const DECODE_BYTES = 16 * 1024;

/** The longest an append may wait for its write lock before the thread gives up its job. */
const START_WAIT_MS = 60_000;

const port = parentPort!;

port.on('message', (job: ChainJob | 'stop') => {
  if (job === 'stop') {
    port.close();
    return;
  }
  const slots = new Int32Array(job.sab, 0, 4);
  // The records arrive before the append holds the write lock; the predecessor once it does.
  Atomics.wait(slots, SLOT.start, START.waiting, START_WAIT_MS);
  if (Atomics.load(slots, SLOT.start) !== START.go) return;
  const hashes = Buffer.from(job.sab, HASHES_OFFSET);
  try {
    const prev = slots[SLOT.hasPrev] ? Buffer.from(job.sab, PREV_OFFSET, HASH_BYTES).toString('hex') : CHAIN_START;
    const firstRevision = new Float64Array(job.sab, FIRST_REVISION_OFFSET, 1)[0];
    const link = appendChain(prev, job.shared);
    const texts = Buffer.from(job.texts);
    let run = 0;
    let { type, schemaVersion, count } = job.kinds[0];
    const { ends, eventIds } = job;
    for (let k = 0, start = 0; k < ends.length; start = ends[k++], count--) {
      if (count === 0) ({ type, schemaVersion, count } = job.kinds[++run]);
      const end = ends[k];
      // A short text is hashed in one call with its record's other fields (appendChain); a long one as its bytes.
      const data = end - start > DECODE_BYTES ? texts.subarray(start, end) : texts.toString('utf8', start, end);
      const hex = link(firstRevision + k, type, schemaVersion, data, eventIds[k]);
      hashes.write(hex, k * HASH_BYTES, 'hex');
      // Counted as they are written: were the thread to stall, the append hashes only the rest.
      Atomics.store(slots, SLOT.written, k + 1);
    }
    Atomics.notify(slots, SLOT.written);
  } catch {
    // The transaction hashes what is left itself (chain-hasher.ts).
    Atomics.store(slots, SLOT.failed, 1);
    Atomics.notify(slots, SLOT.written);
  }
});
port.postMessage('ready');
