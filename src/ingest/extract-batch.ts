import { malformedRequest } from './errors';
import { isJsonObject, type JsonObject, nonEmptyString } from './json-object';

export interface ExtractedBatch {
  /** Undefined when no key was sent: the caller answers 401 `missing_api_key`. */
  apiKey: string | undefined;
  events: unknown[];
  historicalMigration: boolean;
  /** Request-level send time as sent (ISO string), used for clock-skew correction. */
  sentAt: string | undefined;
}

const KEY_FIELDS = ['api_key', 'token', '$token'] as const;

/**
 * Splits a decoded payload into its events and request-level fields. A payload is one event,
 * an array of events (posthog-js), or `{ batch: [...] }` (posthog-node, /batch); `{ data: [...] }`
 * is accepted too. Pass the query to pick up posthog-js's `_` send time.
 */
export function extractBatch(payload: unknown, query: Record<string, string | undefined> = {}): ExtractedBatch {
  const { envelope, events } = splitPayload(payload);
  const fields = batchFields(envelope, events);
  return { ...fields, events, sentAt: fields.sentAt ?? sentAtFromQuery(query._) };
}

/** The request-level fields of a split payload; `sentAt` is the envelope's only (the query's `_` is the caller's). */
export function batchFields(envelope: JsonObject | undefined, events: unknown[]): Omit<ExtractedBatch, 'events'> {
  const first = events[0];
  return {
    apiKey: findApiKey(envelope, isJsonObject(first) ? first : undefined),
    historicalMigration: envelope?.historical_migration === true,
    sentAt: nonEmptyString(envelope?.sent_at),
  };
}

export function splitPayload(payload: unknown): { envelope: JsonObject | undefined; events: unknown[] } {
  if (Array.isArray(payload)) return { envelope: undefined, events: payload };
  if (!isJsonObject(payload)) {
    throw malformedRequest('expected an event, an array of events or an object with a "batch" array');
  }
  if ('batch' in payload) {
    if (!Array.isArray(payload.batch)) throw malformedRequest('"batch" must be an array of events');
    return { envelope: payload, events: payload.batch };
  }
  if (Array.isArray(payload.data) && !('event' in payload)) return { envelope: payload, events: payload.data };
  return { envelope: payload, events: [payload] };
}

/** Order: `api_key`, `token`, `$token` on the request (or the first event), then `properties.token`. */
function findApiKey(envelope: JsonObject | undefined, firstEvent: JsonObject | undefined): string | undefined {
  for (const holder of [envelope, firstEvent]) {
    if (holder === undefined) continue;
    for (const field of KEY_FIELDS) {
      const key = nonEmptyString(holder[field]);
      if (key !== undefined) return key.trim();
    }
  }
  const properties = firstEvent?.properties;
  return isJsonObject(properties) ? nonEmptyString(properties.token)?.trim() : undefined;
}

/**
 * posthog-js sends its clock as `_=<epoch ms>`. Values that land before 2021 are taken to be
 * seconds from older SDKs and ignored, as PostHog's capture does.
 */
export function sentAtFromQuery(value: string | undefined): string | undefined {
  if (value === undefined || !/^\d{1,16}$/.test(value)) return undefined;
  const date = new Date(Number(value));
  return date.getUTCFullYear() > 2020 ? date.toISOString() : undefined;
}
