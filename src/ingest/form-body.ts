import { decodeBase64Text } from './base64';
import { type Compression, resolveCompression } from './compression';
import { malformedRequest, noData } from './errors';

/** The compression hints outside a form body: the query string's, then Content-Encoding. */
export interface FormHints {
  query?: string;
  contentEncoding?: string;
}

/**
 * What a form body (`application/x-www-form-urlencoded`) holds: its `data` field as the JSON text's
 * UTF-8 bytes (base64 decoded when so compressed), the field as lz64 text still to inflate, or (no
 * `data` field: most likely raw JSON with a wrong header) the body to decode as it is.
 */
export type FormOutcome = { kind: 'json'; bytes: Uint8Array } | { kind: 'lz64'; text: string } | { kind: 'raw'; compression: Compression };

/**
 * A form body decoded as decode-body.ts decodes a small one inline (the same refusals: an empty
 * field, invalid base64): on a decode thread for a large one, whose URL-decoding and base64 held
 * the event loop for a few hundred ms at 16 MB.
 */
export function decodeForm(body: Uint8Array, hints: FormHints): FormOutcome {
  const form = new URLSearchParams(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  const data = form.get('data');
  const compression = resolveCompression(hints.query, form.get('compression') ?? undefined, hints.contentEncoding);
  if (data === null) return { kind: 'raw', compression };
  const text = data.replace(/^\uFEFF/, '');
  if (text.trim() === '') throw noData();
  if (compression === 'lz64') return { kind: 'lz64', text };
  if (compression !== 'base64') return { kind: 'json', bytes: Buffer.from(text) };
  const decoded = decodeBase64Text(text.trim());
  if (decoded === undefined) throw malformedRequest('invalid base64 data');
  return { kind: 'json', bytes: Buffer.from(decoded) };
}
