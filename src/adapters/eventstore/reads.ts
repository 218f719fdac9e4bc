import {
  BACKWARDS,
  END,
  FORWARDS,
  START,
  StreamNotFoundError,
  type AllStreamResolvedEvent,
  type EventStoreDBClient,
  type Position,
  type ReadPosition,
} from '@eventstore/db-client';
import type { RecordedEvent } from '../../../streams';
import type { ReadAllOptions, ReadStreamOptions } from '../../store/event-log';
import { dataBytes, toRecordedEvent } from './events';
import type { LogScope } from './filter';
import { readStartOf, samePosition, streamEventPortPosition, toPortPosition } from './positions';

/** Raw `$all` events per round trip: the page also carries system events, which are skipped. */
const PAGE = 1000;
/** Raw events per round trip when looking back for the head. */
const HEAD_PAGE = 100;

async function collect<T>(read: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of read) out.push(item);
  return out;
}

/**
 * Reads of the log. `$all` reads filter system events on this side: the 6.x client sends every
 * `$all` read without a filter (only subscribeToAll takes one), so a page is read raw and
 * filtered here; the live subscription (live-hint.ts) is filtered by the server.
 */
export class LogReads {
  constructor(
    private readonly client: EventStoreDBClient,
    private readonly scope: LogScope,
  ) {}

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const from = options.fromRevision ?? 0;
    // The revision bound becomes a count; the position bound is checked per event (a stream's
    // positions rise with its revisions), and the read stops at the first event past it.
    const maxCount = Math.min(options.maxCount ?? Number.MAX_SAFE_INTEGER, options.toRevision === undefined ? Number.MAX_SAFE_INTEGER : options.toRevision - from + 1);
    if (maxCount <= 0) return [];
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(this.scope.serverStream(streamId), { direction: FORWARDS, fromRevision: BigInt(from), maxCount });
      for await (const resolved of read) {
        if (!resolved.event) continue;
        const recorded = toRecordedEvent(resolved.event, streamId, streamEventPortPosition(resolved.event.position));
        if (options.toPosition !== undefined && recorded.position > options.toPosition) break;
        out.push(recorded);
      }
      return out;
    } catch (err) {
      // The port reads a stream that was never written as an empty one.
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? 1_000_000;
    const out: RecordedEvent[] = [];
    if (maxCount <= 0) return out;
    const start = readStartOf(options.afterPosition);
    let from: ReadPosition = 'after' in start ? start.after : START;
    let skip: Position | null = 'after' in start ? start.after : null;
    let bytes = 0;
    for (;;) {
      // A forward read includes the event at its start position: `skip` is the one already seen.
      const page: AllStreamResolvedEvent[] = await collect(this.client.readAll({ direction: FORWARDS, fromPosition: from, maxCount: Math.min(PAGE, maxCount + 16) }));
      let last: Position | null = null;
      for (const resolved of page) {
        const event = resolved.event;
        if (!event) continue;
        last = event.position;
        if (skip && samePosition(event.position, skip)) continue;
        if (!this.scope.includes(event)) continue;
        const recorded = toRecordedEvent(event, this.scope.portStream(event.streamId)!, toPortPosition(event.position));
        if (options.toPosition !== undefined && recorded.position > options.toPosition) return out;
        if (options.maxBytes !== undefined) {
          const size = dataBytes(recorded);
          // Always at least one event, so a reader advances past an event larger than the bound.
          if (out.length > 0 && bytes + size > options.maxBytes) return out;
          bytes += size;
        }
        out.push(recorded);
        if (out.length >= maxCount) return out;
      }
      if (last === null || page.length < Math.min(PAGE, maxCount + 16)) return out;
      from = last;
      skip = last;
    }
  }

  /** One cheap read (the last record of `$all`, whatever it is): proves the server answers. */
  async probe(): Promise<void> {
    await collect(this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }));
  }

  /** The last event of the filtered `$all`: read backwards past any system (or other logs') events after it. */
  async head(): Promise<number> {
    let from: ReadPosition = END;
    let seen: Position | null = null;
    for (;;) {
      const page: AllStreamResolvedEvent[] = await collect(this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: HEAD_PAGE }));
      let last: Position | null = null;
      for (const resolved of page) {
        const event = resolved.event;
        if (!event) continue;
        last = event.position;
        if (seen && samePosition(event.position, seen)) continue;
        if (this.scope.includes(event)) return toPortPosition(event.position);
      }
      if (last === null || page.length < HEAD_PAGE) return 0;
      from = last;
      seen = last;
    }
  }
}
