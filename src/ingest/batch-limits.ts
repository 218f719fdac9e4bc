/**
 * What one ingestion request may carry once decoded, beyond its byte limits (see
 * docs/security-and-limits.md). Counted off the event loop, before the events reach it.
 */

/**
 * Events one request may hold: 2,500× posthog-node's largest batch (100), with room above the
 * 200,000-event historical imports (`historical_migration`) this service is tested with.
 */
export const MAX_EVENTS_PER_REQUEST = 250_000;
/**
 * JSON values (objects, arrays, strings, numbers, …) one decoded request may hold, counted on its
 * bytes before it is parsed: 20 per event at the largest event count, far more than the 64 MiB
 * decoded limit holds of ordinary events. 64 MiB of `[{},{},…]` (20 M values) is refused on
 * this count, before the parse that would take a decode thread tens of seconds.
 */
export const MAX_JSON_VALUES_PER_REQUEST = 5_000_000;
/**
 * An event's JSON text longer than this is not ingested (an ingestion warning
 * `message_size_too_large` instead, as PostHog drops events past its 1 MB message size). Only a
 * request past 1 MiB decoded can hold one; it bounds the turn that parses the event.
 */
export const MAX_EVENT_CHARS = 1024 * 1024;
/** A large request's events reach the event loop in slices of at most this many events… */
export const SLICE_EVENTS = 1_000;
/** …or this many characters of JSON, parsed and normalised one slice per turn. */
export const SLICE_CHARS = 512 * 1024;
