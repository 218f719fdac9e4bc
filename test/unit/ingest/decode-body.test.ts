import { gzipSync } from 'node:zlib';

import { compressToBase64 } from 'lz-string';
import { describe, expect, it } from 'vitest';

import { decodeBody, IngestError } from '../../../src/ingest';
import { INLINE_FORM_BYTES } from '../../../src/ingest/decode-body';
import {
  base64FormRequest,
  base64Json,
  event,
  posthogJsGzipRequest,
  posthogJsLz64Request,
  posthogNodeRequest,
  request,
} from './helpers';

const batch = { api_key: 'phc_key', batch: [event(), event({ event: '$pageview' })], sent_at: '2024-05-01T12:00:00Z' };
const unicode = event({ properties: { name: 'Zoë 🦔 “quoted” + plus', nested: { list: [1, 2.5, null, true] } } });

function decodeError(run: () => unknown): IngestError {
  try {
    run();
  } catch (error) {
    if (error instanceof IngestError) return error;
    throw error;
  }
  throw new Error('expected an IngestError');
}

describe('decodeBody: raw JSON', () => {
  it.each(['application/json', 'application/json; charset=utf-8', 'text/plain', undefined])(
    'reads a JSON body with content type %s',
    (contentType) => {
      expect(decodeBody(request({ body: Buffer.from(JSON.stringify(batch)), contentType }))).toEqual(batch);
    },
  );

  it('keeps non-ASCII text intact and ignores a UTF-8 BOM', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(unicode))]);
    expect(decodeBody(request({ body }))).toEqual(unicode);
  });

  it("reads Python's NaN / Infinity as null but leaves them alone inside strings", () => {
    const body = Buffer.from('{"event":"e","properties":{"a":NaN,"b":-Infinity,"c":"NaN Infinity"}}');
    expect(decodeBody(request({ body }))).toEqual({ event: 'e', properties: { a: null, b: null, c: 'NaN Infinity' } });
  });

  it('reads an unlabelled base64 body (legacy clients)', () => {
    expect(decodeBody(request({ body: Buffer.from(base64Json(unicode)), contentType: 'text/plain' }))).toEqual(unicode);
  });
});

describe('decodeBody: gzip', () => {
  it('reads a posthog-node body (Content-Encoding: gzip)', () => {
    expect(decodeBody(posthogNodeRequest(batch))).toEqual(batch);
  });

  it('reads a posthog-js gzip-js body (hint in the query)', () => {
    expect(decodeBody(posthogJsGzipRequest([unicode]))).toEqual([unicode]);
  });

  it('detects gzip by its magic bytes when nothing declares it', () => {
    expect(decodeBody(request({ body: gzipSync(JSON.stringify(batch)), contentType: 'text/plain' }))).toEqual(batch);
  });

  it('reads a plain body that a client mislabelled as gzip', () => {
    const input = request({ body: Buffer.from(JSON.stringify(batch)), contentEncoding: 'gzip' });
    expect(decodeBody(input)).toEqual(batch);
  });

  it('rejects corrupt gzip as malformed', () => {
    const body = gzipSync(JSON.stringify(batch)).subarray(0, 20);
    const error = decodeError(() => decodeBody(request({ body, contentEncoding: 'gzip' })));
    expect(error).toMatchObject({ status: 400, type: 'validation_error', code: 'invalid_payload' });
    expect(error.detail).toMatch(/^Malformed request data/);
  });

  it('accepts a body of exactly the limit and refuses one byte more', () => {
    const text = JSON.stringify({ event: 'e', pad: 'x'.repeat(1000) });
    const body = gzipSync(text);
    expect(decodeBody(request({ body, maxDecompressedBytes: text.length }))).toMatchObject({ event: 'e' });
    const error = decodeError(() => decodeBody(request({ body, maxDecompressedBytes: text.length - 1 })));
    expect(error).toMatchObject({ status: 413, type: 'client_error', code: 'request_too_large' });
  });
});

describe('decodeBody: lz64', () => {
  it('reads a posthog-js lz64 form body', () => {
    expect(decodeBody(posthogJsLz64Request([unicode]))).toEqual([unicode]);
  });

  it.each(['lz64', 'lz-string', 'LZ64'])('takes the hint %s from the form field', (hint) => {
    const data = encodeURIComponent(compressToBase64(JSON.stringify(batch)));
    const body = Buffer.from(`data=${data}&compression=${hint}`);
    expect(decodeBody(request({ body, contentType: 'application/x-www-form-urlencoded' }))).toEqual(batch);
  });

  it("restores '+' that form decoding turned into spaces", () => {
    const compressed = compressToBase64(JSON.stringify(unicode));
    expect(compressed).toContain('+');
    const body = Buffer.from(`data=${compressed}`); // not URL-encoded, as some clients do
    const input = request({ body, contentType: 'application/x-www-form-urlencoded', query: { compression: 'lz64' } });
    expect(decodeBody(input)).toEqual(unicode);
  });

  it('rejects data that is not lz64 as malformed', () => {
    const input = request({
      body: Buffer.from('data=%21%21%21'),
      contentType: 'application/x-www-form-urlencoded',
      query: { compression: 'lz64' },
    });
    expect(decodeError(() => decodeBody(input)).code).toBe('invalid_payload');
  });

  it('stops an lz64 bomb at the limit', () => {
    const compressed = compressToBase64('A'.repeat(256 * 1024));
    expect(compressed.length).toBeLessThan(4 * 1024);
    const input = request({
      body: Buffer.from(`data=${encodeURIComponent(compressed)}`),
      contentType: 'application/x-www-form-urlencoded',
      query: { compression: 'lz64' },
      maxDecompressedBytes: 16 * 1024,
    });
    expect(decodeError(() => decodeBody(input))).toMatchObject({ status: 413, code: 'request_too_large' });
  });
});

describe('decodeBody: base64 and form bodies', () => {
  it.each([undefined, 'base64', 'b64'])('reads base64 form data with compression hint %s', (hint) => {
    expect(decodeBody(base64FormRequest(unicode, hint))).toEqual(unicode);
  });

  it('reads plain JSON form data', () => {
    const body = Buffer.from(`data=${encodeURIComponent(JSON.stringify(batch))}`);
    expect(decodeBody(request({ body, contentType: 'application/x-www-form-urlencoded' }))).toEqual(batch);
  });

  it('reads a JSON body sent with a form content type but no data field', () => {
    const body = Buffer.from(JSON.stringify(event()));
    expect(decodeBody(request({ body, contentType: 'application/x-www-form-urlencoded' }))).toEqual(event());
  });

  it('takes the query hint before the form hint', () => {
    const body = Buffer.from(`data=${encodeURIComponent(base64Json(batch))}&compression=lz64`);
    const input = request({ body, contentType: 'application/x-www-form-urlencoded', query: { compression: 'base64' } });
    expect(decodeBody(input)).toEqual(batch);
  });

  it('rejects invalid base64 when base64 is declared', () => {
    const input = base64FormRequest(batch, 'base64');
    const broken = request({ ...input, body: Buffer.from('data=%25%25%25&compression=base64') });
    expect(decodeError(() => decodeBody(broken)).code).toBe('invalid_payload');
  });
});

describe('decodeBody: GET data= (old clients)', () => {
  it('reads JSON from the query', () => {
    expect(decodeBody(request({ body: Buffer.alloc(0), query: { data: JSON.stringify(batch) } }))).toEqual(batch);
  });

  it('reads base64 from the query, spaces standing for +', () => {
    const data = base64Json(unicode).replace(/\+/g, ' ');
    expect(decodeBody(request({ body: Buffer.alloc(0), query: { data } }))).toEqual(unicode);
  });

  it('reads lz64 from the query', () => {
    const query = { data: compressToBase64(JSON.stringify(batch)), compression: 'lz64' };
    expect(decodeBody(request({ body: Buffer.alloc(0), query }))).toEqual(batch);
  });
});

describe('decodeBody: errors', () => {
  it.each([
    ['an empty body', request({ body: Buffer.alloc(0) })],
    ['a whitespace body', request({ body: Buffer.from('  \n') })],
    ['an empty query data and body', request({ body: Buffer.alloc(0), query: { data: '' } })],
    ['an empty gzip body', request({ body: gzipSync(''), contentEncoding: 'gzip' })],
    ['an empty form data field', request({ body: Buffer.from('data='), contentType: 'application/x-www-form-urlencoded' })],
  ])('answers no_data for %s', (_name, input) => {
    expect(decodeError(() => decodeBody(input)).toBody()).toEqual({
      type: 'validation_error',
      code: 'no_data',
      detail: expect.any(String),
      attr: null,
    });
  });

  it.each(['{"event": ', 'not json at all!', '<html></html>', '{"a":1}}'])('answers invalid_payload for %j', (text) => {
    const error = decodeError(() => decodeBody(request({ body: Buffer.from(text) })));
    expect(error).toMatchObject({ status: 400, type: 'validation_error', code: 'invalid_payload', attr: null });
    expect(error.detail).toMatch(/^Malformed request data/);
  });

  it('answers 413 for a raw body over the limit', () => {
    const input = request({ body: Buffer.from(JSON.stringify(batch)), maxDecompressedBytes: 10 });
    expect(decodeError(() => decodeBody(input)).status).toBe(413);
  });
});

describe('decodeBody: a form body past INLINE_FORM_BYTES, decoded on a decode thread', () => {
  // Past 1 MiB of form body: ~12,000 events of ~100 bytes.
  const large = { api_key: 'phc_key', batch: Array.from({ length: 12_000 }, (_, i) => event({ properties: { seq: i, pad: 'x'.repeat(40), name: 'Zoë 🦔 + plus' } })) };
  const form = (fields: Record<string, string>) => Buffer.from(new URLSearchParams(fields).toString());
  const formRequest = (fields: Record<string, string>, query: Record<string, string> = {}) =>
    request({ body: form(fields), contentType: 'application/x-www-form-urlencoded', query });
  const decodeLarge = async (input: ReturnType<typeof request>) => {
    expect(input.body.length).toBeGreaterThan(INLINE_FORM_BYTES);
    return decodeBody(input);
  };
  const refusal = async (input: ReturnType<typeof request>) => {
    const error = await Promise.resolve()
      .then(() => decodeLarge(input))
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(IngestError);
    return error as IngestError;
  };

  it('reads base64 (hint in the form or the query string), plain and lz64 data, and a JSON body under a form header', async () => {
    const text = JSON.stringify(large);
    const base64 = formRequest({ compression: 'base64', data: Buffer.from(text).toString('base64') });
    // Off the loop: the answer comes later, never within the call.
    expect(decodeBody(base64)).toBeInstanceOf(Promise);
    expect(await decodeLarge(base64)).toEqual(large);
    expect(await decodeLarge(formRequest({ data: Buffer.from(text).toString('base64') }, { compression: 'b64' }))).toEqual(large);
    expect(await decodeLarge(formRequest({ data: `\uFEFF${text}` }))).toEqual(large);
    // lz64 shrinks the text below the threshold: another field makes the body large.
    expect(await decodeLarge(formRequest({ compression: 'lz64', data: compressToBase64(text), pad: 'y'.repeat(INLINE_FORM_BYTES) }))).toEqual(large);
    const json = request({ body: Buffer.from(text), contentType: 'application/x-www-form-urlencoded' });
    expect(await decodeLarge(json)).toEqual(large);
  });

  it('hands the decoded JSON to the key gate, as an inline body is; a large body that is not a form stays inline', async () => {
    const seen: string[] = [];
    const keyed = { ...formRequest({ compression: 'base64', data: Buffer.from(JSON.stringify(large)).toString('base64') }), keyGate: (keys: string[]) => void seen.push(...keys) };
    expect(await decodeLarge(keyed)).toEqual(large);
    expect(seen).toContain('phc_key');
    // Raw JSON past the threshold, without a gate or slicing: parsed at once, no thread.
    const json = request({ body: Buffer.from(JSON.stringify(large)), contentType: 'application/json' });
    expect(json.body.length).toBeGreaterThan(INLINE_FORM_BYTES);
    expect(decodeBody(json)).toEqual(large);
  });

  it('refuses as the inline path does: invalid base64 as malformed, an empty data field as no data', async () => {
    const bad = await refusal(formRequest({ compression: 'base64', data: `${'*'.repeat(INLINE_FORM_BYTES)}` }));
    expect(bad.status).toBe(400);
    expect(bad.detail).toMatch(/invalid base64 data/);
    const empty = await refusal(formRequest({ data: ' ', pad: 'y'.repeat(INLINE_FORM_BYTES) }));
    expect(empty.status).toBe(400);
    expect(empty.code).toBe(decodeError(() => decodeBody(formRequest({ data: ' ' }))).code);
  });
});
