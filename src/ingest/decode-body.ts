import { type MaybePromise, whenReady } from '../runtime/loading-cache';
import { decodeBase64Text } from './base64';
import { type Compression, resolveCompression } from './compression';
import { malformedRequest, noData, requestTooLarge } from './errors';
import { hasGzipMagic } from './gzip';
import { inflateGzip, inflateLz64 } from './inflate';
import { checkParsedJson, JsonTooDeepError, wellFormedText } from './json-limits';
import { keysInJson, looksLikeJson } from './key-scan';
import { parseJson } from './json-text';

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
 * rejects with the same IngestErrors.
 */
export function decodeBody(input: DecodeBodyInput): MaybePromise<unknown> {
  const { body, query, contentEncoding, maxDecompressedBytes: max } = input;
  const gated = (bytes: Buffer, then: () => MaybePromise<unknown>) => whenReady(keysAllow(bytes, input.keyGate), then);

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
  return gated(body, () => decodePlain(input, gated));
}

/** A body that is not gzip: raw JSON, or a form, either possibly lz64 or base64 inside. */
function decodePlain(input: DecodeBodyInput, gated: Gated): MaybePromise<unknown> {
  const { body, query, contentEncoding, maxDecompressedBytes: max } = input;

  const text = utf8(body);
  const form = mediaType(input.contentType) === FORM_TYPE ? new URLSearchParams(text) : undefined;
  const formData = form?.get('data') ?? undefined;
  const compression = resolveCompression(query.compression, form?.get('compression') ?? undefined, contentEncoding);
  if (formData !== undefined) return decodeText(formData, compression, max, gated);
  // A form-typed body without a `data` field is most likely raw JSON with a wrong header.
  return decodeText(text, compression, max, gated);
}

type Gated = (bytes: Buffer, then: () => MaybePromise<unknown>) => MaybePromise<unknown>;

/** Whether a JSON text may be parsed: small ones and non-JSON ones (base64) always; a large one when the gate allows its keys. */
function keysAllow(bytes: Buffer, keyGate: DecodeBodyInput['keyGate']): MaybePromise<void> {
  if (keyGate === undefined || bytes.length <= KEY_SCAN_BYTES || !looksLikeJson(bytes)) return undefined;
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
      return parsePayload(decoded);
    }
    // A gzip hint on a body without gzip bytes: the client mislabelled plain text.
    case 'gzip':
    case 'none':
      return parsePayload(text);
  }
}

function parsePayload(raw: string): unknown {
  if (raw.trim() === '') throw noData();
  const text = wellFormedText(raw);
  const parsed = parseJson(text);
  if (parsed.ok) return checked(parsed.value, text);
  // Legacy clients base64-encode the JSON without saying so.
  const decoded = decodeBase64Text(text.trim());
  if (decoded !== undefined) {
    const again = parseJson(decoded);
    if (again.ok) return checked(again.value, decoded);
  }
  throw malformedRequest(`invalid JSON (${parsed.reason})`);
}

/** Every payload, whatever its encoding, passes here: depth limit and lone surrogates (see json-limits). */
function checked(value: unknown, text: string): unknown {
  try {
    return checkParsedJson(value, text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw malformedRequest(error.message);
    throw error;
  }
}

const utf8 = (bytes: Buffer): string => bytes.toString('utf8');

const mediaType = (contentType: string | undefined): string =>
  (contentType ?? '').split(';')[0].trim().toLowerCase();
