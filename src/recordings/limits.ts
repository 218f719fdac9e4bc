/**
 * `/s/` has its own bounds, apart from /batch's: one request carries a session's rrweb buffer (a
 * full snapshot is a whole DOM), and posthog-js never truncates or splits recordings below ~1 MB
 * per event. 20 MB on the wire, 64 MB once inflated, as /batch.
 */
export const RECORDING_BODY_LIMIT = 20 * 1024 * 1024;
export const RECORDING_DECOMPRESSED_LIMIT = 64 * 1024 * 1024;

/**
 * What one `/s/` request may add to the log, counted on the records as stored (their JSON), not on
 * the request: a small body can name many tiny rrweb events, and many windows and sessions, each
 * stored with its ids.
 * The embedded log writes (and syncs) a record on the event loop, and every record is parsed whole
 * when its block is played back, so this bounds the loop time of one request and of one block: on a
 * busy two-core machine an 8 MiB record took ~300 ms to append, 4 MiB about half. PostHog refuses an
 * oversized replay message with a 413 too (capture-rs answers EventTooBig when its Kafka producer
 * refuses a message; the producer's default `message.max.bytes` is 1 MB); posthog-js keeps each
 * buffer under ~1 MB and sends a larger full snapshot alone.
 */
export const RECORDING_STORED_LIMIT = 4 * 1024 * 1024;

/**
 * rrweb events one `/s/` request may store. Parsing cost follows the number of values as much as
 * their bytes: a million `{}` events fit in a few MB and take most of a second to parse back. A
 * posthog-js buffer under ~1 MB holds a few thousand events (rrweb events are rarely under 80
 * bytes, so the byte limit is met first by real recordings).
 */
export const RECORDING_EVENTS_LIMIT = 50_000;

/**
 * Room kept in RECORDING_STORED_LIMIT for a record's fields besides its segments: bounded ids (session
 * ≤ 70, distinct id ≤ 200 and `$lib` ≤ 200 characters, each at most 6 bytes escaped), the source,
 * the received time, the byte count and the keys.
 */
export const RECORD_FIELDS_ALLOWANCE = 4 * 1024;

/**
 * `$window_id`: posthog-js and the mobile SDKs make it a UUID like the session id; capture-rs has no
 * bound of its own, so the session id's (70 characters) is used. It is stored once per run of events
 * of one window, but served on every JSONL line, so its length weighs on every line read back.
 */
export const WINDOW_ID_MAX_LENGTH = 70;

/** `$lib`: an SDK name. capture-rs cuts distinct ids at 200 characters; the same bound here. */
export const LIB_MAX_LENGTH = 200;

/**
 * One answer of `…/snapshots?source=blob_v2`: the blocks it names may hold at most this many bytes
 * (as stored) and rrweb events, so two full blocks fit. A range past it is a 400 naming the range
 * that fits; a block stored under the stored limit always fits alone. The JSONL answer adds the
 * window id (≤ 70 characters) to each line, so it stays under bytes + events × ~80.
 */
export const SNAPSHOT_READ_BUDGET = { bytes: 2 * RECORDING_STORED_LIMIT, events: 2 * RECORDING_EVENTS_LIMIT };
