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

/** One snapshot line as PostHog stores it in its blocks and serves it: `[window_id, rrwebEvent]`. */
export type SnapshotLine = [string, Record<string, unknown>];

/**
 * An rrweb event is kept as sent (an object); it is not walked key by key, since a full snapshot
 * is a whole DOM.
 */
const RrwebEvent = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { message: 'expected an rrweb event' });

/** Consecutive events of one window: the window id is stored once, not on every line. */
const SnapshotSegment = z.object({ window_id: z.string().min(1), events: z.array(RrwebEvent).min(1) });
export type SnapshotSegment = z.infer<typeof SnapshotSegment>;

/** Version 1 stored PostHog's lines as they are served, the window id repeated on each. */
interface SnapshotsV1 {
  snapshots: SnapshotLine[];
  [key: string]: unknown;
}

/** v1 → v2: consecutive lines of one window become one segment; every other field is kept as stored. */
function segmentsFromLines(data: unknown): unknown {
  const { snapshots, ...rest } = data as SnapshotsV1;
  const segments: SnapshotSegment[] = [];
  for (const [windowId, event] of snapshots) {
    const last = segments.at(-1);
    if (last?.window_id === windowId) last.events.push(event);
    else segments.push({ window_id: windowId, events: [event] });
  }
  return { ...rest, segments };
}

/**
 * The snapshots one `/s/` request carried for one session, in request order (a request normally
 * holds one session; several give one record each, appended together). Version 2 stores them as
 * segments (a window id and its events); version 1 records are upcast on read, so they replay and
 * serve the same lines.
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
    segments: z.array(SnapshotSegment).min(1),
    /**
     * UTF-8 size of the snapshots as stored (`segments` as JSON; in version 1 records, the lines),
     * measured once at ingest so the fold and the read budget need not re-serialise.
     */
    snapshot_bytes: z.number().int().nonnegative(),
  }),
  { version: 2, upcasters: { 1: segmentsFromLines } },
);

/** The record's lines in stored order, each `[window_id, event]` as PostHog serves them. */
export function* snapshotLines(data: Pick<RecordingSnapshotsData, 'segments'>): Generator<SnapshotLine> {
  for (const segment of data.segments) for (const event of segment.events) yield [segment.window_id, event];
}

/** How many rrweb events the record holds. */
export const snapshotCount = (data: Pick<RecordingSnapshotsData, 'segments'>): number => data.segments.reduce((n, s) => n + s.events.length, 0);

export const recordingEvents = [RecordingSnapshotsCaptured] as const;
export type RecordingEvent = EventOf<(typeof recordingEvents)[number]>;
export type RecordingSnapshotsData = z.infer<typeof RecordingSnapshotsCaptured.schema>;
