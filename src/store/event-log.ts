import type { Observable } from 'rxjs';
import type { Actor, NewEvent, RecordedEvent } from '../../streams';
import type { ChainHead, StoredContent } from './hash-chain';

/** `no_stream`: must not exist; `stream_exists`: must have at least one event; a number: its last revision. */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface AppendContext {
  projectId?: number | null;
  actor: Actor;
  causationId?: string | null;
  correlationId?: string | null;
}

export interface AppendOptions {
  expectedRevision?: ExpectedRevision;
  context: AppendContext;
  /**
   * Makes the append idempotent: the key is recorded with the append, in the same transaction, and
   * a later append with the same key appends nothing and answers the first one's result (flagged
   * `duplicate`), whatever its events or expected revision. What a redelivered message carries, so
   * a crash between an append and its acknowledgement never appends twice. At most 200 characters.
   */
  idempotencyKey?: string;
}

export interface AppendResult {
  /** Revision of the last appended event: pass it as expectedRevision for the next append. */
  nextExpectedRevision: number;
  firstPosition: number;
  /** Global position of the last appended event: what read-your-writes waits for. */
  lastPosition: number;
  /** True when an earlier append with the same idempotency key answered: nothing was appended. */
  duplicate?: boolean;
}

export const MAX_IDEMPOTENCY_KEY_LENGTH = 200;

/** Refuses a key the adapters could not all store alike (empty or too long). */
export function checkIdempotencyKey(key: string | undefined): void {
  if (key === undefined) return;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw new RangeError(`an idempotency key has 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
}

export interface ReadStreamOptions {
  /** Inclusive: the first revision read; default 0. */
  fromRevision?: number;
  maxCount?: number;
  /** Inclusive upper bound on revisions: the stream as it stood after that revision. */
  toRevision?: number;
  /**
   * Inclusive upper bound on global positions: the stream as the log stood at that position (a
   * position of any stream; compared, never computed). With toRevision, both bounds hold.
   */
  toPosition?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events after this position (the last one the reader saw); absent or 0 (below every position): from the beginning. */
  afterPosition?: number;
  /** Inclusive upper bound. */
  toPosition?: number;
  maxCount?: number;
  /**
   * Stop before the events' data passes this many bytes (always at least one event): one
   * EventsCaptured record holds up to 10,000 events, so a count of records alone bounds nothing.
   */
  maxBytes?: number;
}

export interface SubscribeOptions {
  /** As ReadAllOptions.afterPosition. */
  afterPosition?: number;
  batchSize?: number;
  /** Per emitted batch, as ReadAllOptions.maxBytes. */
  maxBytes?: number;
}

/**
 * The event log port: the only source of truth. Adapters: SQLite (embedded), PostgreSQL and
 * EventStoreDB (scale-out).
 * Positions are opaque: numbers above 0, strictly increasing in commit order, with gaps of any size
 * (a KurrentDB position is a byte offset). Compare them, never compute one: a reader resumes with
 * `afterPosition` = the last position it saw, and never later finds an event at or below it.
 * Revisions are per stream, dense, and start at 0.
 */
export interface EventLog {
  append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult>;
  /** One stream in revision order, within the bounds given; a stream never written reads as empty. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch-up then live, in order; each emission is a batch of consecutive events. */
  subscribeBatches(options?: SubscribeOptions): Observable<RecordedEvent[]>;
  /** Catch-up then live, in order, one event per emission. */
  subscribe(options?: SubscribeOptions): Observable<RecordedEvent>;
  /** Position of the last event readers can see without a gap below it; 0 when the log is empty. */
  head(): Promise<number>;
  /**
   * The last record and its hash in the log's hash chain (src/store/hash-chain.ts): every record
   * read with readAll carries its hash, chained over its predecessor's in log order, the same on
   * every adapter for the same history.
   */
  chainHead(): Promise<ChainHead>;
  /**
   * Optional: the records readAll returns, as the chain covers them, with data and actor as stored
   * (verify hashes those instead of decoding each record and encoding it again).
   */
  readChained?(options?: ReadAllOptions): Promise<ChainedRecord[]>;
  close(): Promise<void>;
}

/** A record's position, stored hash (none before the chain started) and chained content as stored. */
export interface ChainedRecord {
  position: number;
  hash?: string;
  content: StoredContent;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${expected}, actual ${actual}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

export function checkExpectedRevision(streamId: string, expected: ExpectedRevision, current: number | null): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === null) ||
    (expected === 'stream_exists' && current !== null) ||
    (typeof expected === 'number' && expected === current);
  if (!ok) throw new WrongExpectedRevisionError(streamId, expected, current ?? 'no_stream');
}
