import { gunzipSync } from 'node:zlib';

import { malformedRequest, requestTooLarge } from './errors';

/** Clients often compress without saying so (PostHog's capture sniffs these bytes for that reason). */
export const hasGzipMagic = (bytes: Uint8Array): boolean =>
  bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/**
 * Inflates a gzip body, refusing to produce more than `maxBytes`. zlib checks `maxOutputLength`
 * after every inflated chunk, so a bomb stops at the limit instead of being allocated in full.
 * Inline only for bodies small enough that their worst case is cheap; larger ones on a decode thread (see inflate.ts).
 */
export function gunzipBounded(bytes: Uint8Array, maxBytes: number): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (error) {
    throw gzipError(error, maxBytes);
  }
}

function gzipError(error: unknown, maxBytes: number): Error {
  if (isBufferTooLarge(error)) return requestTooLarge(maxBytes);
  const reason = error instanceof Error ? error.message : String(error);
  return malformedRequest(`invalid gzip data (${reason})`);
}

const isBufferTooLarge = (error: unknown): boolean =>
  error instanceof RangeError && (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
