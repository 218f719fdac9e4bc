import { z } from 'zod';

const JsonObject = z.record(z.string(), z.unknown());

/** Canonical form only: ingestion lower-cases and hyphenates every uuid it accepts. */
const CanonicalUuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

/**
 * One ingested event after normalisation: the contract between ingestion and the event log.
 * Deduplication is by (project, uuid).
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

export type CapturedEvent = z.infer<typeof CapturedEventSchema>;

export interface IngestionWarning {
  type: string;
  details: Record<string, unknown>;
}

/** Refused (`ok: false`), or kept, possibly with a warning about a part that was dropped (e.g. a group). */
export type NormalizeResult = { ok: true; event: CapturedEvent; warning?: IngestionWarning } | { ok: false; warning: IngestionWarning };
