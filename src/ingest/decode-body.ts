import { type MaybePromise, whenReady } from '../runtime/loading-cache';
import { decodeBase64Text } from './base64';
import { type Compression, resolveCompression } from './compression';
import { malformedRequest, noData, requestTooLarge } from './errors';
import { hasGzipMagic } from './gzip';
import { inflateGzip, inflateLz64 } from './inflate';
import { checkParsedJson, JsonTooDeepError, wellFormedText } from './json-limits';
import { parseJson } from './json-text';

export interface DecodeBodyInput {
  body: Buffer;
  contentType?: string;
  contentEncoding?: string;
  /** Already URL-decoded query parameters; `data` and `compression` are read from it. */
  query: Record<string, string | undefined>;
  /** Bound on the decoded JSON text, enforced while inflating. */
  maxDecompressedBytes: number;
}

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

  // Old clients send the payload as `?data=` (GET, or a beacon with an empty body).
  const queryData = query.data;
  if (queryData !== undefined && queryData !== '') {
    if (Buffer.byteLength(queryData) > max) throw requestTooLarge(max);
    return decodeText(queryData, resolveCompression(query.compression, contentEncoding), max);
  }
  if (body.length === 0) throw noData();

  // Sniffed rather than trusted: posthog-js sometimes gzips without a usable hint.
  if (hasGzipMagic(body)) return whenReady(inflateGzip(body, max), (inflated) => decodeText(utf8(inflated), 'none', max));
  if (body.length > max) throw requestTooLarge(max);

  const text = utf8(body);
  const form = mediaType(input.contentType) === FORM_TYPE ? new URLSearchParams(text) : undefined;
  const formData = form?.get('data') ?? undefined;
  const compression = resolveCompression(query.compression, form?.get('compression') ?? undefined, contentEncoding);
  if (formData !== undefined) return decodeText(formData, compression, max);
  // A form-typed body without a `data` field is most likely raw JSON with a wrong header.
  return decodeText(text, compression, max);
}

function decodeText(raw: string, compression: Compression, max: number): MaybePromise<unknown> {
  const text = raw.replace(/^\uFEFF/, '');
  if (text.trim() === '') throw noData();
  switch (compression) {
    case 'lz64':
      return whenReady(inflateLz64(text.trim(), max), parsePayload);
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
