import type { CapturedEvent, IngestionWarning, NormalizeResult } from './captured-event';
import { extractDistinctId } from './distinct-id';
import { canonicalUuid } from './event-uuid';
import { isJsonObject, type JsonObject } from './json-object';
import { parseClientDate } from './parse-date';
import { resolveTimestamp } from './timestamp';

export interface NormalizeContext {
  /** Server receive time of the request. */
  now: Date;
  /** Client address of the request (see clientIp). */
  ip: string | undefined;
  /** Request-level send time (see extractBatch). */
  sentAt: string | undefined;
  historicalMigration: boolean;
  /** Mints the uuid of an event that came without one (a UUIDv7 factory). */
  newUuid: () => string;
}

/**
 * One raw event to the logged form, or the ingestion warning explaining why it is not ingested
 * (the request still answers 200: events may be processed asynchronously). The event's
 * `properties` object becomes the logged one (a fresh parse is owned by its request, and copying
 * every map was a fifth of the capture path), so a caller must not reuse it.
 */
export function normalizeEvent(raw: unknown, ctx: NormalizeContext): NormalizeResult {
  if (!isJsonObject(raw)) return warn('invalid_event', { reason: 'event is not a JSON object', value: typeOf(raw) });

  const event = raw.event;
  const sentUuid = raw.uuid;
  // Built only for a warning: most events never need it.
  const context = () => ({ event: typeof event === 'string' ? event : null, eventUuid: describe(sentUuid) });
  if (typeof event !== 'string' || event === '') return warn('missing_event_name', context());

  if (raw.properties !== undefined && raw.properties !== null && !isJsonObject(raw.properties)) {
    return warn('malformed_event_properties', { ...context(), value: typeOf(raw.properties) });
  }
  const properties: JsonObject = isJsonObject(raw.properties) ? raw.properties : {};

  const distinctId = extractDistinctId(raw, properties);
  if (!distinctId.ok) return warn(distinctId.reason, context());

  const uuid = resolveUuid(sentUuid, ctx.newUuid);
  if (uuid === undefined) return warn('invalid_event_uuid', context());

  const sentAtMs = parseClientDate(raw.sent_at) ?? requestSentAt(ctx.sentAt);
  const { timestamp } = resolveTimestamp({
    now: ctx.now,
    timestampMs: parseClientDate(raw.timestamp),
    offsetMs: typeof raw.offset === 'number' && Number.isFinite(raw.offset) ? raw.offset : undefined,
    sentAtMs: properties.$ignore_sent_at === true ? undefined : sentAtMs,
  });

  mergePersonUpdates(properties, raw);
  // PostHog treats any falsy $ip as absent, so `null` or '' gets the request address too.
  if (!properties.$ip && ctx.ip !== undefined) properties.$ip = ctx.ip;

  const captured: CapturedEvent = {
    uuid,
    event,
    distinct_id: distinctId.value,
    properties,
    timestamp: timestamp.toISOString(),
    sent_at: sentAtMs === undefined ? null : isoOfMs(sentAtMs),
    received_at: isoOf(ctx.now),
    ip: ctx.ip ?? null,
    historical_migration: ctx.historicalMigration,
  };
  if (isJsonObject(raw.$set)) captured.$set = raw.$set;
  if (isJsonObject(raw.$set_once)) captured.$set_once = raw.$set_once;
  return { ok: true, event: captured };
}

// Every event of a request shares its `sent_at`: parse it once.
let lastSentAt: { text: string | undefined; ms: number | undefined } = { text: undefined, ms: undefined };
function requestSentAt(text: string | undefined): number | undefined {
  if (text !== lastSentAt.text) lastSentAt = { text, ms: parseClientDate(text) };
  return lastSentAt.ms;
}

// Every event of a request shares `now`: format it once.
let lastNow: { date: Date | null; iso: string } = { date: null, iso: '' };
function isoOf(date: Date): string {
  if (lastNow.date !== date) lastNow = { date, iso: date.toISOString() };
  return lastNow.iso;
}

// ... and usually one `sent_at`.
let lastMs: { ms: number; iso: string } = { ms: Number.NaN, iso: '' };
function isoOfMs(ms: number): string {
  if (lastMs.ms !== ms) lastMs = { ms, iso: new Date(ms).toISOString() };
  return lastMs.iso;
}

/** Top-level values win over the same keys inside properties, as in PostHog's ingestion. */
function mergePersonUpdates(properties: JsonObject, raw: JsonObject): void {
  for (const field of ['$set', '$set_once'] as const) {
    const topLevel = raw[field];
    if (!isJsonObject(topLevel)) continue;
    const inner = properties[field];
    properties[field] = { ...(isJsonObject(inner) ? inner : {}), ...topLevel };
  }
}

/** Absent, null or '' means "mint one" (PostHog's capture reads an empty uuid as none). */
function resolveUuid(sent: unknown, newUuid: () => string): string | undefined {
  if (sent === undefined || sent === null || sent === '') return newUuid();
  return typeof sent === 'string' ? canonicalUuid(sent) : undefined;
}

const warn = (type: string, details: Record<string, unknown>): { ok: false; warning: IngestionWarning } => ({
  ok: false,
  warning: { type, details },
});

const describe = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value) ?? null);

const typeOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
