import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

/** Ingested events go to one stream per project, in request order (historical migration keeps order too). */
export const ingestStream = (projectId: number) => `ingest-${projectId}`;

/**
 * Properties are free-form: checked to be a plain object, not walked key by key (ingestion validates
 * every event at append, and copying each property map would halve the accepted rate).
 */
const Properties = z.custom<Record<string, unknown>>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  { message: 'expected an object' },
);

/** One analytics event as accepted by /capture or /batch, after normalisation (uuid, skew-corrected time, $ip). */
export const EventCaptured = defineEvent(
  'EventCaptured',
  z.object({
    uuid: z.string().min(1),
    event: z.string().min(1),
    distinct_id: z.string().min(1),
    properties: Properties,
    /** ISO 8601, after clock-skew correction. */
    timestamp: z.string(),
    sent_at: z.string().nullable(),
    /** When the server received the request. */
    received_at: z.string(),
    ip: z.string().nullable(),
    historical_migration: z.boolean(),
    /** Top-level person updates as sent (already merged into properties.$set / $set_once). */
    $set: Properties.optional(),
    $set_once: Properties.optional(),
  }),
);

/**
 * Most events one log record carries. A request's events are appended as few records (one for a
 * usual /batch/), in request order and in one atomic append: a row per event cost the capture
 * path more than half its time. The fold orders what an event adds by (position, index), which
 * this bound keeps within a safe integer.
 */
export const MAX_EVENTS_PER_RECORD = 10_000;

/** The events of one request (or of a slice of a very large one), in request order. */
export const EventsCaptured = defineEvent(
  'EventsCaptured',
  z.object({ events: z.array(EventCaptured.schema).min(1).max(MAX_EVENTS_PER_RECORD) }),
);

/** An event that was answered 200 but not ingested (no name, no distinct id, ...). */
export const IngestionWarningRaised = defineEvent(
  'IngestionWarningRaised',
  z.object({
    type: z.string().min(1),
    source: z.string(),
    details: Properties,
  }),
);

export const ingestEvents = [EventCaptured, EventsCaptured, IngestionWarningRaised] as const;
export type IngestEvent = EventOf<(typeof ingestEvents)[number]>;
export type CapturedEventData = z.infer<typeof EventCaptured.schema>;
export type EventsCapturedData = z.infer<typeof EventsCaptured.schema>;
