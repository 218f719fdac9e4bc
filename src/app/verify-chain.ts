import type { ChainedRecord, EventLog, ReadAllOptions } from '../store/event-log';
import { CHAIN_START, contentOf, storedChainHash, type ChainHead, type StoredContent } from '../store/hash-chain';
import type { ChainCheckpoint } from './chain-checkpoint';

export interface ChainBreak {
  /** The first position where the log is not what its chain says. */
  position: number;
  reason: string;
}

export interface ChainReport {
  ok: boolean;
  /** Records whose hash was recomputed and compared. */
  checked: number;
  /** Records appended before the chain started (a log upgraded in place): not covered by it. */
  unchained: { count: number; lastPosition: number } | null;
  /** Position of the first chained record read (null when none). */
  chainStart: number | null;
  /** Where the check started: the log's start, or after a signed checkpoint. */
  from: 'start' | 'checkpoint';
  head: ChainHead;
  /** Whether the chain passed through the signed checkpoint (null without one). */
  checkpoint: (ChainCheckpoint & { passed: boolean }) | null;
  failure: ChainBreak | null;
}

export interface VerifyChainOptions {
  /** The checkpoint verify signed last: the chain must still pass through it. */
  checkpoint?: ChainCheckpoint | null;
  /** Start after the checkpoint, trusting what precedes it, instead of from the log's start. */
  sinceCheckpoint?: boolean;
  /** After each page: the last position read, the head's, and the records checked so far. */
  onProgress?: (position: number, head: number, checked: number) => void;
  /** Records per read. */
  pageSize?: number;
}

/** Log text per read: a page of 10,000-event records is 4 MB each. */
const PAGE_BYTES = 32 * 1024 * 1024;

/**
 * The records of one page as the chain covers them: the stored texts where the adapter hands them
 * out (readChained), else each record read back and its data and actor encoded again (contentOf).
 */
function chainedPages(log: EventLog): (options: ReadAllOptions) => Promise<ChainedRecord[]> {
  if (log.readChained) return (options) => log.readChained!(options);
  return async (options) =>
    (await log.readAll(options)).map((e) => {
      const { dataText, ...rest } = contentOf(e);
      return { position: e.position, hash: e.hash, content: { ...rest, data: dataText } };
    });
}

/**
 * The content as contentOf gives it for the record read back: data and actor decoded and encoded
 * again (null: a text that does not decode, which no append stores). Only asked when the stored
 * texts did not hash to the stored hash, so a record whose texts differ from their encoding and
 * not in value is judged as before.
 */
function reencoded(content: StoredContent): StoredContent | null {
  try {
    const text = typeof content.data === 'string' ? content.data : content.data.toString('utf8');
    return { ...content, data: JSON.stringify(JSON.parse(text)), actorText: JSON.stringify(JSON.parse(content.actorText)) };
  } catch {
    return null;
  }
}

const sameText = (a: string | Buffer, b: string | Buffer) => (typeof a === 'string' ? a : a.toString('utf8')) === (typeof b === 'string' ? b : b.toString('utf8'));

/** Whether the record's stored hash is the chain's hash of its content after `prev`. */
function linkHolds(prev: string, e: ChainedRecord, stored: string): boolean {
  if (storedChainHash(prev, e.content) === stored) return true;
  const again = reencoded(e.content);
  if (again === null || (sameText(again.data, e.content.data) && again.actorText === e.content.actorText)) return false;
  return storedChainHash(prev, again) === stored;
}

/**
 * Recomputes the hash chain of the raw log (not through the contracts layer: the chain covers what
 * is stored, before any upcast) and finds the first record that breaks it: a changed record fails
 * its own hash; a removed, reordered or inserted one breaks the link of the record after it (or
 * its own); a record without a hash inside the chain was inserted, or had its hash removed.
 */
export async function verifyChain(log: EventLog, options: VerifyChainOptions = {}): Promise<ChainReport> {
  const head = await log.chainHead();
  const checkpoint = options.checkpoint ?? null;
  const fromCheckpoint = options.sinceCheckpoint === true && checkpoint !== null;
  const report: ChainReport = {
    ok: true,
    checked: 0,
    unchained: null,
    chainStart: null,
    from: fromCheckpoint ? 'checkpoint' : 'start',
    head,
    checkpoint: checkpoint && { ...checkpoint, passed: false },
    failure: null,
  };
  const fail = (position: number, reason: string) => {
    report.ok = false;
    report.failure = { position, reason };
    return report;
  };
  let prev = fromCheckpoint ? checkpoint.hash : CHAIN_START;
  let started = fromCheckpoint;
  let after = fromCheckpoint ? checkpoint.position : 0;
  if (fromCheckpoint) {
    report.checkpoint!.passed = true;
    if (head.position < checkpoint.position) return fail(checkpoint.position, `the log ends before position ${checkpoint.position}, which verify signed at ${checkpoint.signedAt}: records were removed`);
    if (head.position === checkpoint.position && head.hash !== checkpoint.hash) {
      return fail(checkpoint.position, `the chain no longer passes through the hash verify signed here at ${checkpoint.signedAt}`);
    }
  }
  const signed = checkpoint && !fromCheckpoint ? checkpoint : null;
  const read = chainedPages(log);
  for (;;) {
    const page = await read({ afterPosition: after, toPosition: head.position, maxCount: options.pageSize ?? 2000, maxBytes: PAGE_BYTES });
    if (page.length === 0) break;
    for (const e of page) {
      if (signed && !report.checkpoint!.passed && e.position > signed.position) {
        return fail(e.position, `the record at position ${signed.position}, signed by verify at ${signed.signedAt}, is gone`);
      }
      if (e.hash === undefined) {
        if (started) return fail(e.position, 'a record without a hash inside the chain (inserted, or its hash removed)');
        report.unchained = { count: (report.unchained?.count ?? 0) + 1, lastPosition: e.position };
        continue;
      }
      if (!started) {
        started = true;
        report.chainStart = e.position;
      } else report.chainStart ??= e.position;
      report.checked++;
      if (!linkHolds(prev, e, e.hash)) {
        return fail(e.position, `its hash does not match its content and its predecessor's hash (the record was changed, or one before it was removed, reordered or inserted)`);
      }
      if (signed && e.position === signed.position) {
        if (e.hash !== signed.hash) {
          return fail(e.position, `the chain no longer passes through the hash verify signed here at ${signed.signedAt} (records up to here were rewritten and rehashed)`);
        }
        report.checkpoint!.passed = true;
      }
      prev = e.hash;
    }
    after = page[page.length - 1].position;
    options.onProgress?.(after, head.position, report.checked);
  }
  if (signed && !report.checkpoint!.passed) {
    return fail(signed.position, `the log ends before position ${signed.position}, which verify signed at ${signed.signedAt}: records were removed`);
  }
  return report;
}
