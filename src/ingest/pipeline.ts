import { v7 as uuidv7 } from 'uuid';
import { ingestStream, MAX_EVENTS_PER_RECORD, type CapturedEventData, type NewEvent } from '../../streams';
import type { EventLog } from '../store/event-log';
import { decodeBody } from './decode-body';
import { extractBatch } from './extract-batch';
import { keyGateFor, projectAfterBody, refuseBeforeBody } from './refuse-before-body';
import type { IngestionWarning } from './captured-event';
import { normalizeEvent, requestContext } from './normalize-event';
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
  /** Log position of the append; null when the request carried nothing to append. */
  position: number | null;
}

/**
 * Refuse what the query string already condemns (unknown key, project over its limits) → decode →
 * authenticate by project key → normalise each event → ONE append of the whole request,
 * in request order (events batched into EventsCaptured records, warnings between them). Only
 * after the append has returned (durable) does the caller answer 200.
 */
export class IngestPipeline {
  private readonly now: () => Date;

  constructor(private readonly deps: IngestPipelineDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async ingest(request: IngestRequest): Promise<IngestResult> {
    const refused = refuseBeforeBody(request.query, request.body.length, this.deps.projectIdForToken, request.admit);
    const early = refused instanceof Promise ? await refused : refused;
    const decoded = decodeBody({ ...request, keyGate: keyGateFor(early, request.body.length, this.deps.projectIdForToken, request.admit) });
    // A small body decodes at once; only a large compressed one waits for its inflation off the loop.
    const payload = decoded instanceof Promise ? await decoded : decoded;
    const batch = extractBatch(payload, request.query);
    const resolved = projectAfterBody(early, batch.apiKey, this.deps.projectIdForToken);
    const projectId = resolved instanceof Promise ? await resolved : resolved;
    request.admit?.(projectId, { events: batch.events.length, bytes: request.body.length, historical: batch.historicalMigration });

    const now = this.now();
    const ctx = requestContext({
      now,
      ip: request.ip,
      sentAt: batch.sentAt,
      historicalMigration: batch.historicalMigration,
      newUuid: uuidv7,
    });
    const events: NewEvent[] = [];
    // Captured events go into as few EventsCaptured records as request order allows: a warning
    // between two events closes the record before it.
    let captured: CapturedEventData[] = [];
    const flush = () => {
      if (captured.length === 0) return;
      events.push({ type: 'EventsCaptured', data: { events: captured } });
      captured = [];
    };
    const warning = (w: IngestionWarning) => {
      flush();
      events.push({ type: 'IngestionWarningRaised', data: { type: w.type, source: 'capture', details: w.details } });
    };
    let accepted = 0;
    for (const raw of batch.events) {
      const result = normalizeEvent(raw, ctx);
      if (result.ok) {
        if (result.warning) warning(result.warning);
        const e = result.event;
        if (this.deps.enrich) e.properties = this.deps.enrich(e.properties, (e.properties.$ip as string | undefined) ?? e.ip);
        captured.push(e);
        if (captured.length === MAX_EVENTS_PER_RECORD) flush();
        accepted++;
      } else warning(result.warning);
    }
    flush();
    if (events.length === 0) return { projectId, accepted: 0, warnings: 0, position: null };
    const result = await this.deps.log.append(ingestStream(projectId), events, {
      expectedRevision: 'any',
      context: { actor: { type: 'project_key', projectId }, projectId },
    });
    return { projectId, accepted, warnings: batch.events.length - accepted, position: result.lastPosition };
  }
}
