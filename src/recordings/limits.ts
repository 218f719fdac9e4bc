/**
 * `/s/` has its own bounds, apart from /batch's: one request carries a session's rrweb buffer (a
 * full snapshot is a whole DOM), and posthog-js never truncates or splits recordings below ~1 MB
 * per event. 20 MB on the wire, 64 MB once inflated, as /batch.
 */
export const RECORDING_BODY_LIMIT = 20 * 1024 * 1024;
export const RECORDING_DECOMPRESSED_LIMIT = 64 * 1024 * 1024;
