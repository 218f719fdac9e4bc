import { SESSION_ID_PATTERN, type SnapshotSegment } from '../../streams';
import { extractDistinctId } from '../ingest/distinct-id';
import { malformedRequest } from '../ingest/errors';
import { isJsonObject, nonEmptyString } from '../ingest/json-object';
import { LIB_MAX_LENGTH, WINDOW_ID_MAX_LENGTH } from './limits';
import { StoredSizeCounter } from './stored-size';

/** One session's part of a `/s/` request, before the log adds when it was received. */
export interface SessionSnapshots {
  session_id: string;
  distinct_id: string;
  snapshot_source: string;
  lib: string;
  segments: SnapshotSegment[];
  snapshot_bytes: number;
}

/**
 * Splits the `$snapshot` events of one request into one entry per session, in request order.
 * capture-rs's rules (compat §9): `$session_id` (≤70 chars of `[A-Za-z0-9-]`), `distinct_id` and
 * `$snapshot_data` (an rrweb event or an array of them) are required, else the whole request is a
 * 400 and nothing is stored; `$window_id` defaults to the session id, `$snapshot_source` to `web`,
 * `$lib` to the User-Agent when it names posthog, else `web` (`unknown` with no User-Agent).
 * Events are kept as segments: consecutive events of one window under that window id, in order.
 * Unlike capture-rs, the window is taken per event, not from the first one, so a batch holding two
 * windows keeps them apart.
 *
 * Bounds (docs/security-and-limits.md): `$window_id` (served on every line) and `$lib` have a
 * length limit (400 past it); `$snapshot_source` is `mobile` or `web`, as current capture-rs stamps
 * it (never the client's raw value); what the records will weigh in the log is counted event by
 * event and the request refused with a 413 once past the stored limit, before any large string is built.
 */
export function extractSnapshots(events: unknown[], userAgent: string | undefined, counter = new StoredSizeCounter()): SessionSnapshots[] {
  if (events.length === 0) throw malformedRequest('no $snapshot events in the request');
  const sessions = new Map<string, SessionSnapshots>();
  events.forEach((raw, index) => {
    const at = `event ${index}`;
    if (!isJsonObject(raw)) throw malformedRequest(`${at} is not an object`);
    const properties = isJsonObject(raw.properties) ? raw.properties : {};
    const sessionId = properties.$session_id;
    if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId)) {
      throw malformedRequest(`${at}: $session_id must be 1 to 70 characters of A-Z, a-z, 0-9 and '-'`);
    }
    const distinctId = extractDistinctId(raw, properties);
    if (!distinctId.ok) throw malformedRequest(`${at}: distinct_id is required`);
    const windowId = nonEmptyString(properties.$window_id) ?? sessionId;
    if (windowId.length > WINDOW_ID_MAX_LENGTH) throw malformedRequest(`${at}: $window_id must be at most ${WINDOW_ID_MAX_LENGTH} characters`);
    const data = properties.$snapshot_data;
    const rrweb = Array.isArray(data) ? data : isJsonObject(data) ? [data] : undefined;
    if (rrweb === undefined) throw malformedRequest(`${at}: $snapshot_data must be an rrweb event or an array of them`);
    if (!rrweb.every(isJsonObject)) throw malformedRequest(`${at}: every $snapshot_data item must be an object`);

    let session = sessions.get(sessionId);
    if (session === undefined) {
      const lib = nonEmptyString(properties.$lib);
      if (lib !== undefined && lib.length > LIB_MAX_LENGTH) throw malformedRequest(`${at}: $lib must be at most ${LIB_MAX_LENGTH} characters`);
      session = {
        session_id: sessionId,
        distinct_id: distinctId.value,
        snapshot_source: properties.$snapshot_source === 'mobile' ? 'mobile' : 'web',
        lib: lib ?? libFromUserAgent(userAgent),
        segments: [],
        snapshot_bytes: 0,
      };
      sessions.set(sessionId, session);
    }
    // Counted as stored: the window id once per segment (consecutive events of one window), then
    // each event as JSON; nothing the size of the record is built to measure it.
    let segment = session.segments.at(-1);
    for (const item of rrweb) {
      if (session.segments.length === 0) session.snapshot_bytes += counter.record();
      if (segment === undefined || segment.window_id !== windowId) {
        session.snapshot_bytes += counter.segment(JSON.stringify(windowId), session.segments.length === 0);
        segment = { window_id: windowId, events: [] };
        session.segments.push(segment);
      }
      session.snapshot_bytes += counter.event(JSON.stringify(item), segment.events.length === 0);
      segment.events.push(item as Record<string, unknown>);
    }
  });
  const out = [...sessions.values()].filter((s) => s.segments.length > 0);
  if (out.length === 0) throw malformedRequest('$snapshot_data holds no rrweb events');
  return out;
}

/** A User-Agent is as long as the client likes: the name taken from it is cut, not refused. */
function libFromUserAgent(userAgent: string | undefined): string {
  if (userAgent === undefined || userAgent === '') return 'unknown';
  return userAgent.toLowerCase().includes('posthog') ? userAgent.split('/')[0].trim().slice(0, LIB_MAX_LENGTH) || 'web' : 'web';
}
