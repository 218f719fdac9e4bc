import { recordingStream, type NewEvent, type RecordingSnapshotsData } from '../../streams';
import { extractBatch } from '../ingest/extract-batch';
import { decodeKeyedBody } from '../ingest/keyed-body';
import type { AdmitIngest } from '../ingest/rate-limited';
import type { EventLog } from '../store/event-log';
import { directTransport, type IngestTransport } from '../store/ingest-transport';
import { extractSnapshots } from './extract-snapshots';

export interface RecordingRequest {
  body: Buffer;
  contentType?: string;
  contentEncoding?: string;
  userAgent?: string;
  query: Record<string, string | undefined>;
  maxDecompressedBytes: number;
  admit?: AdmitIngest;
}

export interface RecordingIngestDeps {
  log: EventLog;
  /** How the records reach the log; default: appended directly to `log`. */
  transport?: IngestTransport;
  projectIdForToken: (token: string) => number | undefined | Promise<number | undefined>;
  /**
   * Whether the project records sessions now (its `session_recording_opt_in`, as remote config
   * serves it; absent: every project records). When this answers false, the request is answered
   * like an accepted one and nothing is stored, as PostHog does (its capture accepts the batch and
   * the replay consumer drops teams that have not opted in; posthog-js should not have sent it, and
   * a retry would not help). Answered from memory for a known project; a promise only on a miss.
   */
  recordingAccepted?: (projectId: number) => boolean | Promise<boolean>;
  now?: () => Date;
}

export interface RecordingIngestResult {
  projectId: number;
  sessions: number;
  /** Log position of the append; null when nothing was stored (recording off). */
  position: number | null;
}

/**
 * `/s/`: decode (every compression posthog-js uses, via the ingestion decoder) → authenticate by
 * project key → split per session → ONE append of a RecordingSnapshotsCaptured record per session
 * to the project's recordings stream. The caller answers only after the append returned (durable).
 *
 * Why the log and not a blob store: the log is the only source of truth and must replay a
 * recording like everything else, and one atomic append is both the durability point and the
 * order; a blob store would add a second write that must be fsynced before the log append and
 * garbage collected after a failed one. The cost is size: snapshots are large, so they go to a
 * stream of their own (never folded into the analytics events table) and the read model keeps
 * only per-chunk metadata and log revisions, never the snapshot data itself.
 */
export class RecordingIngest {
  private readonly now: () => Date;
  private readonly transport: IngestTransport;

  constructor(private readonly deps: RecordingIngestDeps) {
    this.now = deps.now ?? (() => new Date());
    this.transport = deps.transport ?? directTransport(deps.log);
  }

  async ingest(request: RecordingRequest): Promise<RecordingIngestResult> {
    const { batch, projectId } = await decodeKeyedBody(request, this.deps.projectIdForToken, (payload) => extractBatch(payload, request.query));
    // Before any per-line work: a project that does not record costs a lookup in memory.
    const accepting = this.accepts(projectId);
    if (!(accepting instanceof Promise ? await accepting : accepting)) return { projectId, sessions: 0, position: null };
    const sessions = extractSnapshots(batch.events, request.userAgent);
    request.admit?.(projectId, { events: batch.events.length, bytes: request.body.length, historical: false });

    const received_at = this.now().toISOString();
    const events: NewEvent[] = sessions.map((s): NewEvent => ({
      type: 'RecordingSnapshotsCaptured',
      data: { ...s, received_at } satisfies RecordingSnapshotsData,
    }));
    const handed = await this.transport.handOver({
      streamId: recordingStream(projectId),
      projectId,
      historical: false,
      records: events,
      context: { actor: { type: 'project_key', projectId }, projectId },
    });
    return { projectId, sessions: sessions.length, position: handed.position };
  }

  private accepts(projectId: number): boolean | Promise<boolean> {
    return this.deps.recordingAccepted?.(projectId) ?? true;
  }
}
