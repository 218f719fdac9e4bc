import { sentAtFromQuery, type ExtractedBatch } from './extract-batch';
import type { BatchSlice, OversizedEvent, SlicedBatchData } from './batch-slices';

/**
 * A large request as the decode thread handed it over (batch-slices.ts): its request-level fields
 * at once, its events one slice at a time, each slice parsed when asked for (one turn's work).
 */
export class LargeBatch implements Omit<ExtractedBatch, 'events'> {
  readonly apiKey: string | undefined;
  readonly historicalMigration: boolean;
  readonly sentAt: string | undefined;
  /** How many events the request holds, oversized ones included. */
  readonly eventCount: number;
  private readonly bytes: Buffer;
  private readonly slices: BatchSlice[];

  /** `query`: posthog-js's `_` send time stands in for an envelope without `sent_at`, as in extractBatch. */
  constructor(data: SlicedBatchData, query: Record<string, string | undefined>) {
    this.apiKey = data.apiKey;
    this.historicalMigration = data.historicalMigration;
    this.sentAt = data.sentAt ?? sentAtFromQuery(query._);
    this.eventCount = data.events;
    this.bytes = Buffer.from(data.bytes.buffer, data.bytes.byteOffset, data.bytes.byteLength);
    this.slices = data.slices;
  }

  get sliceCount(): number {
    return this.slices.length;
  }

  /** Slice `index`: its raw events, or the one event too large to ingest. */
  slice(index: number): { events: unknown[] } | { oversized: OversizedEvent } {
    const s = this.slices[index];
    if ('oversized' in s) return { oversized: s.oversized };
    const start = index === 0 ? 0 : this.slices[index - 1].end;
    // Written by the decode thread from checked JSON: an array of events.
    return { events: JSON.parse(this.bytes.toString('utf8', start, s.end)) as unknown[] };
  }
}
