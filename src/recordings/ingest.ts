import { recordingStream, type NewEvent, type RecordingSnapshotsData } from '../../streams';
import { decodeBody } from '../ingest/decode-body';
import { extractBatch } from '../ingest/extract-batch';
import { keyGateFor, projectAfterBody, refuseBeforeBody } from '../ingest/refuse-before-body';
import type { AdmitIngest } from '../ingest/rate-limited';
import type { EventLog } from '../store/event-log';
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
  projectIdForToken: (token: string) => number | undefined | Promise<number | undefined>;
  /**
   * HOOK (recording on/off): whether the project records sessions now. The project setting
   * `session_recording_opt_in` served in remote config is built elsewhere; until it is wired here,
   * every project accepts recordings. When this answers false, the request is answered like an
   * accepted one (posthog-js should not have sent it; retrying would not help) and nothing is stored.
   */
  recordingAccepted?: (projectId: number) => boolean;
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

  constructor(private readonly deps: RecordingIngestDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async ingest(request: RecordingRequest): Promise<RecordingIngestResult> {
    const refused = refuseBeforeBody(request.query, request.body.length, this.deps.projectIdForToken, request.admit);
    const early = refused instanceof Promise ? await refused : refused;
    const keyGate = keyGateFor(early, request.body.length, this.deps.projectIdForToken, request.admit);
    const batch = extractBatch(await decodeBody({ ...request, keyGate }), request.query);
    const resolved = projectAfterBody(early, batch.apiKey, this.deps.projectIdForToken);
    const projectId = resolved instanceof Promise ? await resolved : resolved;
    const sessions = extractSnapshots(batch.events, request.userAgent);
    request.admit?.(projectId, { events: batch.events.length, bytes: request.body.length, historical: false });
    if (this.deps.recordingAccepted && !this.deps.recordingAccepted(projectId)) return { projectId, sessions: 0, position: null };

    const received_at = this.now().toISOString();
    const events: NewEvent[] = sessions.map((s): NewEvent => ({
      type: 'RecordingSnapshotsCaptured',
      data: { ...s, received_at } satisfies RecordingSnapshotsData,
    }));
    const result = await this.deps.log.append(recordingStream(projectId), events, {
      expectedRevision: 'any',
      context: { actor: { type: 'project_key', projectId }, projectId },
    });
    return { projectId, sessions: sessions.length, position: result.lastPosition };
  }
}
