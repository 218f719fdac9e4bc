import { storedTooLarge } from '../ingest/errors';
import { RECORD_FIELDS_ALLOWANCE, RECORDING_EVENTS_LIMIT, RECORDING_STORED_LIMIT } from './limits';

/**
 * Counts, line by line, what one `/s/` request will append: each record's `snapshots` array as the
 * log will serialise it, plus a fixed allowance per record for its other (bounded) fields. It throws
 * the 413 as soon as the request passes a limit, so a hostile body costs at most the limit's worth
 * of serialising, never the whole amplified record.
 */
export class StoredSizeCounter {
  private bytes = 0;
  private events = 0;

  constructor(
    private readonly limit = RECORDING_STORED_LIMIT,
    private readonly eventsLimit = RECORDING_EVENTS_LIMIT,
  ) {}

  /** A new record: its fields besides the lines, and the `[]` around them. */
  record(): void {
    this.add(RECORD_FIELDS_ALLOWANCE + 2);
  }

  /**
   * One `[window_id, event]` line: `windowJsonBytes` is the UTF-8 length of the window id as JSON
   * (quotes included), `eventJson` the event as JSON; `first` says no comma precedes it.
   * Returns the line's bytes as stored (comma excluded).
   */
  line(windowJsonBytes: number, eventJson: string, first: boolean): number {
    if (++this.events > this.eventsLimit) throw storedTooLarge(`a request may store at most ${this.eventsLimit} rrweb events`);
    const bytes = windowJsonBytes + Buffer.byteLength(eventJson) + 3; // [ , ]
    this.add(bytes + (first ? 0 : 1));
    return bytes;
  }

  get total(): number {
    return this.bytes;
  }

  private add(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes > this.limit) throw storedTooLarge(`the recording would be stored as more than ${this.limit} bytes`);
  }
}
