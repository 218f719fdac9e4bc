import { v7 as uuidv7 } from 'uuid';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ingestStream, type NewEvent } from '../../streams';
import type { EventLog } from '../store/event-log';
import { directTransport, type IngestTransport } from '../store/ingest-transport';
import { decodeKeyedBody } from './keyed-body';
import { MAX_EVENTS_PER_REQUEST, SLICE_EVENTS } from './batch-limits';
import { CapturedRecords } from './captured-records';
import { tooManyEvents } from './errors';
import { extractBatch, type ExtractedBatch } from './extract-batch';
import { LargeBatch } from './large-batch';
import { normalizeEvent, requestContext, type RequestContext } from './normalize-event';
import type { AdmitIngest } from './rate-limited';

export interface IngestRequest {
  body: Buffer;
  contentType?: string;
  contentEncoding?: string;
  query: Record<string, string | undefined>;
  /** Client address (X-Forwarded-For first entry, else the socket). */
  ip: string | undefined;
  maxDecompressedBytes: number;
  /** Per-project limits, checked once the project is known and before anything is appended (throws to refuse). */
  admit?: AdmitIngest;
}

export interface IngestPipelineDeps {
  log: EventLog;
  /** How the normalised records reach the log; default: appended directly to `log`. */
  transport?: IngestTransport;
  /** Project id for a public project API key, from the access read model. */
  projectIdForToken: (token: string) => number | undefined | Promise<number | undefined>;
  /** Adds $geoip_* properties unless the event disables it. */
  enrich?: (properties: Record<string, unknown>, ip: string | null) => Record<string, unknown>;
  now?: () => Date;
}

export interface IngestResult {
  projectId: number;
  accepted: number;
  warnings: number;
  /** Log position of the append; null when the request carried nothing to append, or a broker holds it for the ingest role. */
  position: number | null;
}

/**
 * Refuse what the query string already condemns (unknown key, project over its limits) → decode →
 * authenticate by project key → normalise each event → ONE hand-over of the whole request to the
 * ingestion transport (direct: one append), in request order (events batched into EventsCaptured records, warnings between them). Only
 * after the append has returned (durable) does the caller answer 200.
 *
 * A large request never holds the event loop in one go: its body is parsed on a decode thread
 * (decode-body's sliceLarge), and its events are normalised, enriched and serialised one slice
 * per turn; the append stays one, so a retried request never duplicates its server-minted uuids.
 */
export class IngestPipeline {
  private readonly now: () => Date;
  private readonly transport: IngestTransport;

  constructor(private readonly deps: IngestPipelineDeps) {
    this.now = deps.now ?? (() => new Date());
    this.transport = deps.transport ?? directTransport(deps.log);
  }

  async ingest(request: IngestRequest): Promise<IngestResult> {
    const { batch, projectId } = await decodeKeyedBody({ ...request, sliceLarge: true }, this.deps.projectIdForToken, (payload) => {
      const batch = payload instanceof LargeBatch ? payload : extractBatch(payload, request.query);
      if (eventCount(batch) > MAX_EVENTS_PER_REQUEST) throw tooManyEvents(MAX_EVENTS_PER_REQUEST);
      return batch;
    });
    request.admit?.(projectId, { events: eventCount(batch), bytes: request.body.length, historical: batch.historicalMigration });
    return this.normaliseAndHandOver(projectId, batch, request.ip);
  }

  /**
   * Events already parsed and checked at the caller's own boundary (the import CLI's JSONL lines go
   * through the same JSON limits as a body), for a known project: the same normalisation and
   * hand-over as `ingest`, without serialising them into a body to decode again.
   */
  async ingestParsed(request: { projectId: number; events: unknown[]; historicalMigration: boolean; bytes: number; admit?: AdmitIngest }): Promise<IngestResult> {
    const { projectId, events, historicalMigration } = request;
    if (events.length > MAX_EVENTS_PER_REQUEST) throw tooManyEvents(MAX_EVENTS_PER_REQUEST);
    request.admit?.(projectId, { events: events.length, bytes: request.bytes, historical: historicalMigration });
    return this.normaliseAndHandOver(projectId, { apiKey: undefined, events, historicalMigration, sentAt: undefined }, undefined);
  }

  private async normaliseAndHandOver(projectId: number, batch: LargeBatch | ExtractedBatch, ip: string | undefined): Promise<IngestResult> {
    const count = eventCount(batch);

    const ctx = requestContext({
      now: this.now(),
      ip,
      sentAt: batch.sentAt,
      historicalMigration: batch.historicalMigration,
      newUuid: uuidv7,
    });
    let accepted = 0;
    let records: NewEvent[];
    if (!(batch instanceof LargeBatch) && batch.events.length <= SLICE_EVENTS) {
      // The common request: one turn, nothing prepared ahead of the append.
      const out = new CapturedRecords(false);
      accepted = this.normalizeInto(batch.events, ctx, out);
      out.flush();
      records = out.records;
    } else {
      const out = new CapturedRecords(true);
      const slices = batch instanceof LargeBatch ? batch : new SlicesOf(batch.events);
      for (let i = 0; i < slices.sliceCount; i++) {
        // Each slice is a turn of its own: a concurrent request (or /_health) waits one slice at most.
        if (i > 0) await nextTurn();
        const slice = slices.slice(i);
        if ('oversized' in slice) out.warning({ type: 'message_size_too_large', details: { ...slice.oversized } });
        else accepted += this.normalizeInto(slice.events, ctx, out);
      }
      out.flush();
      records = out.records;
      await nextTurn();
    }
    if (records.length === 0) return { projectId, accepted: 0, warnings: 0, position: null };
    const handed = await this.transport.handOver({
      streamId: ingestStream(projectId),
      projectId,
      historical: batch.historicalMigration,
      records,
      context: { actor: { type: 'project_key', projectId }, projectId },
    });
    return { projectId, accepted, warnings: count - accepted, position: handed.position };
  }

  /** Normalises (and enriches) raw events into `out`, in order; returns how many were accepted. */
  private normalizeInto(raws: unknown[], ctx: RequestContext, out: CapturedRecords): number {
    let accepted = 0;
    for (const raw of raws) {
      const result = normalizeEvent(raw, ctx);
      if (result.ok) {
        if (result.warning) out.warning(result.warning);
        const e = result.event;
        if (this.deps.enrich) e.properties = this.deps.enrich(e.properties, (e.properties.$ip as string | undefined) ?? e.ip);
        out.add(e);
        accepted++;
      } else out.warning(result.warning);
    }
    return accepted;
  }
}

const eventCount = (batch: LargeBatch | ExtractedBatch): number => (batch instanceof LargeBatch ? batch.eventCount : batch.events.length);

/** An already parsed batch too long for one turn (a body under the slicing threshold can still hold tens of thousands of small events), in slices of SLICE_EVENTS. */
class SlicesOf {
  constructor(private readonly events: unknown[]) {}

  get sliceCount(): number {
    return Math.ceil(this.events.length / SLICE_EVENTS);
  }

  slice(index: number): { events: unknown[] } {
    return { events: this.events.slice(index * SLICE_EVENTS, (index + 1) * SLICE_EVENTS) };
  }
}
