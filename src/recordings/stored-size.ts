import { storedTooLarge } from '../ingest/errors';
import { RECORD_FIELDS_ALLOWANCE, RECORDING_EVENTS_LIMIT, RECORDING_STORED_LIMIT } from './limits';

/** `{"window_id":` before a segment's window id and `,"events":[` … `]}` around its events. */
const SEGMENT_FRAME = '{"window_id":'.length + ',"events":['.length + ']}'.length;

/**
 * Counts, piece by piece, what one `/s/` request will append: each record's `segments` as the log
 * will serialise them, plus a fixed allowance per record for its other (bounded) fields. It throws
 * the 413 as soon as the request passes a limit, so a hostile body costs at most the limit's worth
 * of serialising, never the whole record. Each method returns the bytes its piece adds to the
 * record's `segments` JSON (separators included), which is what `snapshot_bytes` records.
 */
export class StoredSizeCounter {
  private bytes = 0;
  private events = 0;

  constructor(
    private readonly limit = RECORDING_STORED_LIMIT,
    private readonly eventsLimit = RECORDING_EVENTS_LIMIT,
  ) {}

  /** A new record: its fields besides the segments, and the `[]` around them. */
  record(): number {
    this.add(RECORD_FIELDS_ALLOWANCE);
    return this.add(2);
  }

  /** A new segment; `windowJson` is its window id as JSON (quotes included). */
  segment(windowJson: string, first: boolean): number {
    return this.add(SEGMENT_FRAME + Buffer.byteLength(windowJson) + (first ? 0 : 1));
  }

  /** One rrweb event, as JSON, in the current segment. */
  event(eventJson: string, first: boolean): number {
    if (++this.events > this.eventsLimit) throw storedTooLarge(`a request may store at most ${this.eventsLimit} rrweb events`);
    return this.add(Buffer.byteLength(eventJson) + (first ? 0 : 1));
  }

  get total(): number {
    return this.bytes;
  }

  private add(bytes: number): number {
    this.bytes += bytes;
    if (this.bytes > this.limit) throw storedTooLarge(`the recording would be stored as more than ${this.limit} bytes`);
    return bytes;
  }
}
