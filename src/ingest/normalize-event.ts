import type { CapturedEventData } from '../../streams';
import { dropNonFiniteIds, extractDistinctId } from './distinct-id';
import { dropUnusableGroups } from './event-groups';
import { canonicalUuid } from './event-uuid';
import type { IngestionWarning } from './ingestion-warning';
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
 * Refused (`ok: false`), or kept as the log's EventCaptured data (uuid canonical, times ISO),
 * possibly with a warning about a part that was dropped (e.g. a group).
 */
export type NormalizeResult = { ok: true; event: CapturedEventData; warning?: IngestionWarning } | { ok: false; warning: IngestionWarning };

/** A context with what every event of the request shares worked out once (see requestContext). */
export interface RequestContext extends NormalizeContext {
  receivedAt: string;
  /** The request-level `sent_at`, parsed, and as stored. */
  sentAtMs: number | undefined;
  sentAtIso: string | null;
}

/** Parses and formats the request-level times once, instead of once per event. */
export function requestContext(ctx: NormalizeContext): RequestContext {
  const sentAtMs = parseClientDate(ctx.sentAt);
  return { ...ctx, receivedAt: ctx.now.toISOString(), sentAtMs, sentAtIso: sentAtMs === undefined ? null : new Date(sentAtMs).toISOString() };
}

/**
 * One raw event to the logged form, or the ingestion warning explaining why it is not ingested
 * (the request still answers 200: events may be processed asynchronously). The event's
 * `properties` object becomes the logged one (a fresh parse is owned by its request, and copying
 * every map was a fifth of the capture path), so a caller must not reuse it.
 */
export function normalizeEvent(raw: unknown, context: NormalizeContext | RequestContext): NormalizeResult {
  const ctx = 'receivedAt' in context ? context : requestContext(context);
  if (!isJsonObject(raw)) return warn('invalid_event', { reason: 'event is not a JSON object', value: typeOf(raw) });

  const event = raw.event;
  const sentUuid = raw.uuid;
  // Built only for a warning: most events never need it.
  const details = () => ({ event: typeof event === 'string' ? event : null, eventUuid: describe(sentUuid) });
  if (typeof event !== 'string' || event === '') return warn('missing_event_name', details());

  if (raw.properties !== undefined && raw.properties !== null && !isJsonObject(raw.properties)) {
    return warn('malformed_event_properties', { ...details(), value: typeOf(raw.properties) });
  }
  const properties: JsonObject = isJsonObject(raw.properties) ? raw.properties : {};

  const distinctId = extractDistinctId(raw, properties);
  if (!distinctId.ok) return warn(distinctId.reason, details());

  const uuid = resolveUuid(sentUuid, ctx.newUuid);
  if (uuid === undefined) return warn('invalid_event_uuid', details());

  const eventSentAtMs = parseClientDate(raw.sent_at);
  const sentAtMs = eventSentAtMs ?? ctx.sentAtMs;
  const { timestamp } = resolveTimestamp({
    now: ctx.now,
    timestampMs: parseClientDate(raw.timestamp),
    offsetMs: typeof raw.offset === 'number' && Number.isFinite(raw.offset) ? raw.offset : undefined,
    sentAtMs: properties.$ignore_sent_at === true ? undefined : sentAtMs,
  });

  mergePersonUpdates(properties, raw);
  dropNonFiniteIds(properties);
  const droppedGroups = dropUnusableGroups(event, properties);
  // PostHog treats any falsy $ip as absent, so `null` or '' gets the request address too; a
  // non-string one (`5`, `{}`) is no address either and is treated as absent the same way.
  if (properties.$ip !== undefined && properties.$ip !== null && typeof properties.$ip !== 'string') delete properties.$ip;
  if (!properties.$ip && ctx.ip !== undefined) properties.$ip = ctx.ip;

  const captured: CapturedEventData = {
    uuid,
    event,
    distinct_id: distinctId.value,
    properties,
    timestamp: timestamp.toISOString(),
    sent_at: eventSentAtMs === undefined ? ctx.sentAtIso : new Date(eventSentAtMs).toISOString(),
    received_at: ctx.receivedAt,
    ip: ctx.ip ?? null,
    historical_migration: ctx.historicalMigration,
  };
  if (isJsonObject(raw.$set)) captured.$set = raw.$set;
  if (isJsonObject(raw.$set_once)) captured.$set_once = raw.$set_once;
  return droppedGroups === undefined ? { ok: true, event: captured } : { ok: true, event: captured, warning: { ...droppedGroups, details: { ...details(), ...droppedGroups.details } } };
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
