import { type MaybePromise, whenReady } from '../runtime/loading-cache';
import { decodeBase64Text } from './base64';
import { type Compression, resolveCompression } from './compression';
import { malformedRequest, noData, requestTooLarge } from './errors';
import { hasGzipMagic } from './gzip';
import type { FormOutcome } from './form-body';
import { decodeLargeForm, inflateGzip, inflateLz64, sliceLargeBatch } from './inflate';
import { LargeBatch } from './large-batch';
import { KEY_SCAN_WINDOW, keysInJson, keysInJsonInTurns, looksLikeJson } from './key-scan';
import { parsePayload } from './parse-payload';

export interface DecodeBodyInput {
  body: Buffer;
  contentType?: string;
  contentEncoding?: string;
  /** Already URL-decoded query parameters; `data` and `compression` are read from it. */
  query: Record<string, string | undefined>;
  /** Bound on the decoded JSON text, enforced while inflating. */
  maxDecompressedBytes: number;
  /**
   * Consulted before a large JSON text (past KEY_SCAN_BYTES) is parsed on the event loop, with the
   * project keys it names (keysInJson); throws to refuse. Parsing 64 MiB of `[{},{},…]` (a 64 KB
   * gzip body) held the loop for tens of seconds, only to answer 401 for want of a key.
   */
  keyGate?: (keys: string[]) => MaybePromise<void>;
  /**
   * Whether a large JSON text (past KEY_SCAN_BYTES) is parsed off the event loop and handed back
   * as a LargeBatch (events in slices) rather than as the parsed payload: for ingestion, whose
   * pipeline takes the events a slice per turn.
   */
  sliceLarge?: boolean;
}

/** Above this a JSON text's keys are scanned for before it is parsed (a 1 MiB parse takes a few ms). */
export const KEY_SCAN_BYTES = 1024 * 1024;

const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * Turns any body form an SDK sends (raw JSON, form field `data`, GET `data=`; gzip, lz64 or
 * base64) into the parsed JSON payload. Throws IngestError for empty, malformed or oversized input.
 *
 * A value at once for plain and small compressed bodies (the common request pays no extra turn);
 * a promise when a large compressed body is inflated off the event loop (see inflate.ts), which
 * rejects with the same IngestErrors. With `sliceLarge`, a large JSON text resolves to a
 * LargeBatch, parsed and checked on a decode thread, instead of the payload.
 */
export function decodeBody(input: DecodeBodyInput): MaybePromise<unknown> {
  const { body, query, contentEncoding, maxDecompressedBytes: max } = input;
  const gated: Gated = (bytes, then, handOver = true) =>
    whenReady(keysAllow(bytes, input.keyGate), () =>
      input.sliceLarge && isLargeJson(bytes) ? sliceLargeBatch(bytes, handOver).then((data) => new LargeBatch(data, query)) : then(),
    );

  // Old clients send the payload as `?data=` (GET, or a beacon with an empty body).
  const queryData = query.data;
  if (queryData !== undefined && queryData !== '') {
    if (Buffer.byteLength(queryData) > max) throw requestTooLarge(max);
    return decodeText(queryData, resolveCompression(query.compression, contentEncoding), max, gated);
  }
  if (body.length === 0) throw noData();

  // Sniffed rather than trusted: posthog-js sometimes gzips without a usable hint.
  if (hasGzipMagic(body)) return whenReady(inflateGzip(body, max), (inflated) => gated(inflated, () => decodeText(utf8(inflated), 'none', max, gated)));
  if (body.length > max) throw requestTooLarge(max);
  // The request's own bytes are copied to the thread, not taken from it.
  return gated(body, () => decodePlain(input, gated), false);
}

/** Form bodies past this are URL- and base64-decoded on a decode thread (form-body.ts), not inline. */
export const INLINE_FORM_BYTES = 1024 * 1024;

/** A body that is not gzip: raw JSON, or a form, either possibly lz64 or base64 inside. */
function decodePlain(input: DecodeBodyInput, gated: Gated): MaybePromise<unknown> {
  const { body, query, contentEncoding, maxDecompressedBytes: max } = input;
  if (body.length > INLINE_FORM_BYTES && mediaType(input.contentType) === FORM_TYPE) {
    return decodeLargeForm(body, { query: query.compression, contentEncoding }).then((form) => afterForm(form, input, gated));
  }

  const text = utf8(body);
  const form = mediaType(input.contentType) === FORM_TYPE ? new URLSearchParams(text) : undefined;
  const formData = form?.get('data') ?? undefined;
  const compression = resolveCompression(query.compression, form?.get('compression') ?? undefined, contentEncoding);
  if (formData !== undefined) return decodeText(formData, compression, max, gated);
  // A form-typed body without a `data` field is most likely raw JSON with a wrong header.
  return decodeText(text, compression, max, gated);
}

/** Goes on from a form decoded on a decode thread as decodePlain goes on from one decoded inline. */
function afterForm(form: FormOutcome, input: DecodeBodyInput, gated: Gated): MaybePromise<unknown> {
  const max = input.maxDecompressedBytes;
  if (form.kind === 'raw') return decodeText(utf8(input.body), form.compression, max, gated);
  if (form.kind === 'lz64') return decodeText(form.text, 'lz64', max, gated);
  const bytes = Buffer.from(form.bytes.buffer, form.bytes.byteOffset, form.bytes.byteLength);
  if (bytes.length <= KEY_SCAN_BYTES || !looksLikeJson(bytes)) return parsePayload(utf8(bytes));
  return gated(bytes, () => parsePayload(utf8(bytes)));
}

/** Parses what `bytes` hold via `then`, or (a large JSON text, with sliceLarge) on a decode thread; `handOver`: the bytes may be transferred. */
type Gated = (bytes: Buffer, then: () => MaybePromise<unknown>, handOver?: boolean) => MaybePromise<unknown>;

const isLargeJson = (bytes: Buffer): boolean => bytes.length > KEY_SCAN_BYTES && looksLikeJson(bytes);

/** Whether a JSON text may be parsed: small ones and non-JSON ones (base64) always; a large one when the gate allows its keys. */
function keysAllow(bytes: Buffer, keyGate: DecodeBodyInput['keyGate']): MaybePromise<void> {
  if (keyGate === undefined || !isLargeJson(bytes)) return undefined;
  // Past one window the search takes turns: a whole 64 MiB search is a long turn on a busy machine.
  if (bytes.length > KEY_SCAN_WINDOW) return keysInJsonInTurns(bytes).then(keyGate);
  return keyGate(keysInJson(bytes));
}

function decodeText(raw: string, compression: Compression, max: number, gated: Gated): MaybePromise<unknown> {
  const text = raw.replace(/^\uFEFF/, '');
  if (text.trim() === '') throw noData();
  switch (compression) {
    case 'lz64':
      // Large input comes back as bytes from an lz64 thread, scanned for keys before it is parsed.
      return whenReady(inflateLz64(text.trim(), max), (inflated) =>
        typeof inflated === 'string' ? parsePayload(inflated) : gated(inflated, () => parsePayload(utf8(inflated))),
      );
    case 'base64': {
      const decoded = decodeBase64Text(text.trim());
      if (decoded === undefined) throw malformedRequest('invalid base64 data');
      return parseText(decoded, gated);
    }
    // A gzip hint on a body without gzip bytes: the client mislabelled plain text.
    case 'gzip':
    case 'none':
      return parseText(text, gated);
  }
}

/**
 * A JSON text that came as text (a form field, `?data=`, base64) parsed as one that came as bytes:
 * a large one is gated and, with sliceLarge, parsed off the loop like any other.
 */
function parseText(text: string, gated: Gated): MaybePromise<unknown> {
  if (text.length <= KEY_SCAN_BYTES || !STARTS_LIKE_JSON.test(text)) return parsePayload(text);
  return gated(Buffer.from(text), () => parsePayload(text));
}

const STARTS_LIKE_JSON = /^\s*[[{]/;

const utf8 = (bytes: Buffer): string => bytes.toString('utf8');

const mediaType = (contentType: string | undefined): string =>
  (contentType ?? '').split(';')[0].trim().toLowerCase();
