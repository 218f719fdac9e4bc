import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

/**
 * Session recording snapshots go to one stream per project, apart from the ingest stream: the
 * analytics events table never sees a `$snapshot` row (PostHog keeps recordings apart from events
 * too), and the recordings projection reads only this record type.
 */
export const recordingStream = (projectId: number) => `recordings-${projectId}`;

/** capture-rs's rule for `$session_id`: at most 70 characters of `[A-Za-z0-9-]`. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9-]{1,70}$/;

/**
 * One snapshot line as PostHog stores it in its blocks: `[window_id, rrwebEvent]`. The rrweb event
 * is kept as sent (an object); it is not walked key by key, since a full snapshot is a whole DOM.
 */
const SnapshotLine = z.custom<[string, Record<string, unknown>]>(
  (v) => Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'object' && v[1] !== null && !Array.isArray(v[1]),
  { message: 'expected [window_id, rrweb event]' },
);

/**
 * The snapshots one `/s/` request carried for one session, in request order (a request normally
 * holds one session; several give one record each, appended together).
 */
export const RecordingSnapshotsCaptured = defineEvent(
  'RecordingSnapshotsCaptured',
  z.object({
    session_id: z.string().regex(SESSION_ID_PATTERN),
    distinct_id: z.string().min(1),
    /** `web` unless the SDK says otherwise (mobile SDKs send `mobile`). */
    snapshot_source: z.string().min(1),
    lib: z.string().min(1),
    /** When the server received the request (ISO 8601). */
    received_at: z.string(),
    snapshots: z.array(SnapshotLine).min(1),
    /** UTF-8 size of `snapshots` as JSON, measured once at ingest so the fold need not re-serialise. */
    snapshot_bytes: z.number().int().nonnegative(),
  }),
);

export const recordingEvents = [RecordingSnapshotsCaptured] as const;
export type RecordingEvent = EventOf<(typeof recordingEvents)[number]>;
export type RecordingSnapshotsData = z.infer<typeof RecordingSnapshotsCaptured.schema>;
export type SnapshotLine = [string, Record<string, unknown>];
