import { z } from 'zod';

const JsonObject = z.record(z.string(), z.unknown());

/** Canonical form only: ingestion lower-cases and hyphenates every uuid it accepts. */
const CanonicalUuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

/**
 * What normalizeEvent promises about an event it keeps, stricter than the log's EventCaptured
 * contract (streams/ingest.ts), which checks shapes only: canonical uuid, ISO timestamps.
 */
export const CapturedEventSchema = z.object({
  uuid: CanonicalUuid,
  event: z.string().min(1),
  distinct_id: z.string().min(1),
  /**
   * The client's properties, plus `$ip` when the client sent none, and the top-level
   * `$set` / `$set_once` merged into `properties.$set` / `properties.$set_once`: person
   * processing reads those, never the top-level copies below.
   */
  properties: JsonObject,
  /** ISO 8601 (UTC), after clock-skew correction and the future clamp. */
  timestamp: z.iso.datetime(),
  /** The client's send time that was in effect (event or request level), ISO; null if absent or unparseable. */
  sent_at: z.iso.datetime().nullable(),
  /** When the server received the request, ISO. */
  received_at: z.iso.datetime(),
  /** The request's client address (not `properties.$ip`, which a client may override). */
  ip: z.string().nullable(),
  historical_migration: z.boolean(),
  /** Top-level person updates exactly as sent, kept for fidelity with the wire format. */
  $set: JsonObject.optional(),
  $set_once: JsonObject.optional(),
});
