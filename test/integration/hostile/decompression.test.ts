import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { gzipBomb, lz64Bomb } from './bombs';
import { withinHealthBudget } from './loop-watch';
import { errorShapeProblem, rawRequest, type RawResponse } from './raw-request';

// Issue 21, item 3: compressed bombs from anyone (no key needed) were inflated on the event loop
// before the key was looked at; sixteen at once held /_health for 3–4 s. Payloads are built before
// each watched window: the test shares the server's event loop.
let s: TestServer;
let lz64Body: Buffer;
let gzipBody: Buffer;
let emptyObjectsBody: Buffer;
let emptyObjectsBogusKeyBody: Buffer;

beforeAll(async () => {
  s = await startTestServer();
  // ~72 M chars from 25 KB, past the 64 MiB /batch/ limit; the form's `data` field, as posthog-js sends lz64.
  lz64Body = Buffer.from(`data=${encodeURIComponent(lz64Bomb(12_000))}`);
  gzipBody = gzipBomb(256);
  // Within the limit and valid JSON: 20 M empty objects, tens of seconds of JSON.parse on the loop.
  const objects = '{},'.repeat(20_000_000);
  emptyObjectsBody = gzipSync(`[${objects}{}]`);
  emptyObjectsBogusKeyBody = gzipSync(`{"api_key": "phc_bogus", "batch": [${objects}{}]}`);
});
afterAll(() => s.close());

const send = (path: string, body: Buffer, headers: Record<string, string>): Promise<RawResponse> =>
  rawRequest(s.url, { method: 'POST', path, headers, body });

const lz64 = (path: string) => send(path, lz64Body, { 'content-type': 'application/x-www-form-urlencoded' });
const gzip = (path: string) => send(path, gzipBody, { 'content-type': 'application/json', 'content-encoding': 'gzip' });

function expectRefused(responses: RawResponse[], status: number, code: string) {
  for (const res of responses) {
    expect(res.status, res.text).toBe(status);
    expect(errorShapeProblem(res.text)).toBeNull();
    expect((JSON.parse(res.text) as { code: string }).code).toBe(code);
  }
}

describe('compressed bombs leave the event loop free', () => {
  it('sixteen concurrent keyless lz64 /batch/ bombs all answer 413', async () => {
    const before = await s.runtime.log.head();
    const responses = await withinHealthBudget(s.url, 'lz64 bombs', () =>
      Promise.all(Array.from({ length: 16 }, () => lz64('/batch/?compression=lz64'))),
    );
    expectRefused(responses, 413, 'request_too_large');
    expect(await s.runtime.log.head()).toBe(before);
  });

  it('sixteen concurrent keyless gzip /batch/ bombs all answer 413', async () => {
    const responses = await withinHealthBudget(s.url, 'gzip bombs', () => Promise.all(Array.from({ length: 16 }, () => gzip('/batch/'))));
    expectRefused(responses, 413, 'request_too_large');
  });

  it('lz64 bombs on /flags/, /e/ and /s/ are refused as well', async () => {
    const paths = ['/flags/?v=2&compression=lz64', '/e/?compression=lz64', '/s/?compression=lz64'];
    const responses = await withinHealthBudget(s.url, 'lz64 bombs, other routes', () =>
      Promise.all(Array.from({ length: 24 }, (_, i) => lz64(paths[i % 3]))),
    );
    expectRefused(responses, 413, 'request_too_large');
  });
});

describe('cheap refusals first', () => {
  it('an unknown key in the query string answers 401 without the body being inflated', async () => {
    // Inflated first, these answered 413: the key was only looked at once the body was decoded.
    const responses = await withinHealthBudget(s.url, 'bombs with an unknown ?token=', () =>
      Promise.all([
        ...Array.from({ length: 8 }, () => lz64('/batch/?compression=lz64&token=phc_unknown')),
        ...Array.from({ length: 8 }, () => gzip('/batch/?api_key=phc_unknown')),
        lz64('/flags/?v=2&compression=lz64&token=phc_unknown'),
        lz64('/s/?compression=lz64&token=phc_unknown'),
      ]),
    );
    expectRefused(responses, 401, 'invalid_api_key');
  });

  it('a large valid JSON body naming no known key is refused before it is parsed', async () => {
    const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    const responses = await withinHealthBudget(s.url, 'keyless and bogus-key JSON of empty objects', () =>
      Promise.all([
        ...Array.from({ length: 4 }, () => send('/batch/', emptyObjectsBody, headers)),
        ...Array.from({ length: 4 }, () => send('/batch/', emptyObjectsBogusKeyBody, headers)),
      ]),
    );
    expectRefused(responses.slice(0, 4), 401, 'missing_api_key');
    expectRefused(responses.slice(4), 401, 'invalid_api_key');
  });

  it('a key in the query string is the request key', async () => {
    const body = JSON.stringify({ batch: [{ event: 'from-query-key', distinct_id: 'q1' }] });
    const res = await send(`/batch/?token=${s.credentials.project_api_key}`, Buffer.from(body), { 'content-type': 'application/json' });
    expect(res.status, res.text).toBe(200);
  });

  it('a large legitimate lz64 batch still decodes (off the loop)', async () => {
    const { compressToBase64 } = await import('lz-string');
    const events = Array.from({ length: 2_000 }, (_, i) => ({ event: 'big', distinct_id: `u${i}`, properties: { n: i, text: `value ${i * 7919}` } }));
    const data = compressToBase64(JSON.stringify({ api_key: s.credentials.project_api_key, batch: events }));
    expect(data.length).toBeGreaterThan(4096);
    const res = await send('/batch/?compression=lz64', Buffer.from(`data=${encodeURIComponent(data)}`), { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status, res.text).toBe(200);
  });
});

describe('a project over its limits', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ env: { INGEST_EVENTS_PER_SECOND: '1', INGEST_HISTORICAL_EVENTS_PER_SECOND: '1' } });
  });
  afterAll(() => limited.close());

  it('is answered 429 before its compressed body is inflated, when the key is in the query string', async () => {
    const key = limited.credentials.project_api_key;
    const json = (historical: boolean) => Buffer.from(JSON.stringify({ historical_migration: historical, batch: [{ event: 'e', distinct_id: 'd' }] }));
    const headers = { 'content-type': 'application/json' };
    for (const historical of [false, true]) {
      const res = await rawRequest(limited.url, { method: 'POST', path: `/batch/?token=${key}`, headers, body: json(historical) });
      expect(res.status, res.text).toBe(200);
    }
    // Inflated first, this answered 413: the limits were only consulted once the body was decoded.
    const res = await rawRequest(limited.url, {
      method: 'POST',
      path: `/batch/?compression=lz64&token=${key}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: lz64Body,
    });
    expect(res.status, res.text).toBe(429);
    expect(res.headers['retry-after']).toBeDefined();
    expect(errorShapeProblem(res.text)).toBeNull();
  });
});
