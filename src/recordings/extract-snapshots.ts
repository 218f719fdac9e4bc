import { SESSION_ID_PATTERN, type SnapshotLine } from '../../streams';
import { extractDistinctId } from '../ingest/distinct-id';
import { malformedRequest } from '../ingest/errors';
import { isJsonObject, nonEmptyString } from '../ingest/json-object';

/** One session's part of a `/s/` request, before the log adds when it was received. */
export interface SessionSnapshots {
  session_id: string;
  distinct_id: string;
  snapshot_source: string;
  lib: string;
  snapshots: SnapshotLine[];
  snapshot_bytes: number;
}

/**
 * Splits the `$snapshot` events of one request into one entry per session, in request order.
 * capture-rs's rules (compat §9): `$session_id` (≤70 chars of `[A-Za-z0-9-]`), `distinct_id` and
 * `$snapshot_data` (an rrweb event or an array of them) are required, else the whole request is a
 * 400 and nothing is stored; `$window_id` defaults to the session id, `$snapshot_source` to `web`,
 * `$lib` to the User-Agent when it names posthog, else `web` (`unknown` with no User-Agent).
 * Unlike capture-rs, the window is taken per event, not from the first one, so a batch holding two
 * windows keeps them apart.
 */
export function extractSnapshots(events: unknown[], userAgent: string | undefined): SessionSnapshots[] {
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
    const data = properties.$snapshot_data;
    const rrweb = Array.isArray(data) ? data : isJsonObject(data) ? [data] : undefined;
    if (rrweb === undefined) throw malformedRequest(`${at}: $snapshot_data must be an rrweb event or an array of them`);
    if (!rrweb.every(isJsonObject)) throw malformedRequest(`${at}: every $snapshot_data item must be an object`);

    let session = sessions.get(sessionId);
    if (session === undefined) {
      session = {
        session_id: sessionId,
        distinct_id: distinctId.value,
        snapshot_source: nonEmptyString(properties.$snapshot_source) ?? 'web',
        lib: nonEmptyString(properties.$lib) ?? libFromUserAgent(userAgent),
        snapshots: [],
        snapshot_bytes: 0,
      };
      sessions.set(sessionId, session);
    }
    for (const item of rrweb) session.snapshots.push([windowId, item as Record<string, unknown>]);
  });
  const out = [...sessions.values()].filter((s) => s.snapshots.length > 0);
  if (out.length === 0) throw malformedRequest('$snapshot_data holds no rrweb events');
  for (const s of out) s.snapshot_bytes = Buffer.byteLength(JSON.stringify(s.snapshots));
  return out;
}

function libFromUserAgent(userAgent: string | undefined): string {
  if (userAgent === undefined || userAgent === '') return 'unknown';
  return userAgent.toLowerCase().includes('posthog') ? userAgent.split('/')[0].trim() || 'web' : 'web';
}
