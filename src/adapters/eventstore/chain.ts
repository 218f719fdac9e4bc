import type { RecordedEvent } from '../../../streams';
import type { ReadAllOptions } from '../../store/event-log';
import { CHAIN_START, chainHash, contentOf, type ChainHead } from '../../store/hash-chain';

/** Hashes remembered at the ends of reads, so that a reader resuming where it stopped chains on at once. */
const KNOWN_POINTS = 4096;
/** Records per read while walking up to a position whose hash is not known. */
const WALK_PAGE = 5000;

/**
 * KurrentDB has no critical section spanning streams, so no append can read its predecessor in
 * `$all` before committing: the chain is formed by readers instead, over `$all` commit order (which
 * the server fixes at commit and never changes), with the same hashing as the other adapters. A
 * record's hash is computed as the record is read; reading after a position whose hash this handle
 * has not seen first walks the log up to it (from the nearest position it knows, or from the
 * start). The README ("KurrentDB: how the chain is formed and sealed") says how `verify` seals it.
 */
export class ReaderChain {
  /** Position → hash of the records reads ended at (insertion order, oldest dropped first). */
  private readonly known = new Map<number, string>();

  constructor(private readonly readAll: (options: ReadAllOptions) => Promise<RecordedEvent[]>) {}

  /** Reads the log and gives each record its hash. */
  async read(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const events = await this.readAll(options);
    if (events.length === 0) return events;
    let prev = await this.hashAt(options.afterPosition ?? 0);
    for (const e of events) {
      prev = chainHash(prev, contentOf(e));
      e.hash = prev;
    }
    this.remember(events[events.length - 1].position, prev);
    return events;
  }

  async head(position: number): Promise<ChainHead> {
    return { position, hash: position === 0 ? null : await this.hashAt(position) };
  }

  /** The hash of the record at `position`, or of the last record below it ("" below every record). */
  private async hashAt(position: number): Promise<string> {
    if (position <= 0) return CHAIN_START;
    const known = this.known.get(position);
    if (known !== undefined) return known;
    let from = 0;
    let prev = CHAIN_START;
    for (const [p, h] of this.known) {
      if (p < position && p > from) {
        from = p;
        prev = h;
      }
    }
    for (;;) {
      const page = await this.readAll({ afterPosition: from, toPosition: position, maxCount: WALK_PAGE });
      if (page.length === 0) break;
      for (const e of page) prev = chainHash(prev, contentOf(e));
      from = page[page.length - 1].position;
    }
    this.remember(position, prev);
    return prev;
  }

  private remember(position: number, hash: string): void {
    this.known.delete(position);
    this.known.set(position, hash);
    if (this.known.size > KNOWN_POINTS) this.known.delete(this.known.keys().next().value!);
  }
}
