import type { MaybePromise } from '../runtime/loading-cache';
import { DecompressionGate } from './decompression-gate';
import { isIngestError, malformedRequest, requestTooLarge } from './errors';
import { gunzipBounded } from './gzip';
import { inflateLz64Text } from './lz64-bounded';
import { type SlicedBatchData, refusalError } from './batch-slices';
import { DecodeThreads } from './decode-threads';
import type { FormHints, FormOutcome } from './form-body';

/**
 * Compressed input up to this size is inflated inline, on the event loop: its worst case is cheap
 * (a 4 KiB gzip body reaches ~4 MiB, a few ms; 4 KiB of lz64 reaches ~2 M chars) and the common
 * request (/flags/, a posthog-js /e/ batch) is a few KB, so it pays no hop to another thread.
 */
export const INLINE_COMPRESSED_BYTES = 4 * 1024;
/**
 * Inline inflation also stops here (a few ms of work at most); a small body that inflates further
 * starts over off the loop. Wasted work is bounded by this, and only bombs or unusual bodies pay it.
 */
export const INLINE_OUTPUT_BYTES = 1024 * 1024;
/**
 * Large decompressions (and large JSON parses, see sliceLargeBatch) at once: two, the cores this service is sized for; the rest wait in order,
 * up to 64, beyond which a request is answered 503 at once (see DecompressionGate).
 */
export const LARGE_DECOMPRESSIONS_AT_ONCE = 2;
export const LARGE_DECOMPRESSIONS_QUEUED = 64;

const gate = new DecompressionGate(LARGE_DECOMPRESSIONS_AT_ONCE, LARGE_DECOMPRESSIONS_QUEUED);
const threads = new DecodeThreads();

/** The gzip body's bytes, at most `maxBytes` of them; a value at once for a small body, a promise for a large one. */
export function inflateGzip(bytes: Buffer, maxBytes: number): MaybePromise<Buffer> {
  if (bytes.length <= INLINE_COMPRESSED_BYTES) {
    const inlineMax = Math.min(maxBytes, INLINE_OUTPUT_BYTES);
    try {
      return gunzipBounded(bytes, inlineMax);
    } catch (error) {
      // Too large for inline but maybe not for the request's limit: finish off the loop.
      if (!(inlineMax < maxBytes && isTooLarge(error))) throw error;
    }
  }
  // On a decode thread: zlib's async API would free the loop while inflating, but then join the
  // output's chunks on it, one long turn for a large body.
  return gate.run(() => threads.gunzip(bytes, maxBytes));
}

/**
 * lz64 text (lz-string's base64 form) to the JSON text: a string when inflated inline (small input),
 * UTF-8 bytes when inflated on an lz64 thread (large input; the bytes can be scanned before decoding).
 */
export function inflateLz64(text: string, maxBytes: number): MaybePromise<string | Buffer> {
  if (text.length <= INLINE_COMPRESSED_BYTES) {
    const inlineMax = Math.min(maxBytes, INLINE_OUTPUT_BYTES);
    const outcome = inflateLz64Text(text, inlineMax);
    if (outcome.ok) return outcome.text;
    if (outcome.reason !== 'too_large' || inlineMax === maxBytes) throw lz64Refusal(outcome.reason, maxBytes);
  }
  return gate.run(() => threads.inflateLz64(text, maxBytes)).then((outcome) => {
    if (outcome.ok) return outcome.bytes;
    throw lz64Refusal(outcome.reason, maxBytes);
  });
}

const lz64Refusal = (reason: 'too_large' | 'corrupt', maxBytes: number): Error =>
  reason === 'too_large' ? requestTooLarge(maxBytes) : malformedRequest('failed to decompress lz64 data');

const isTooLarge = (error: unknown): boolean => isIngestError(error) && error.status === 413;

/**
 * A large JSON body parsed, checked and cut into slices on a decode thread (batch-slices.ts), under
 * the same gate as large decompressions: the event loop then parses one slice per turn. Rejects
 * with the IngestError the thread refused with (malformed, too many values or events).
 */
export async function sliceLargeBatch(bytes: Uint8Array, handOver: boolean): Promise<SlicedBatchData> {
  const outcome = await gate.run(() => threads.sliceBatch(bytes, handOver));
  if (!outcome.ok) throw refusalError(outcome.refusal);
  return outcome.batch;
}

/** A large form body decoded on a decode thread (form-body.ts), under the same gate. */
export function decodeLargeForm(bytes: Uint8Array, hints: FormHints): Promise<FormOutcome> {
  return gate.run(() => threads.decodeForm(bytes, hints));
}
