import { gzipSync, deflateSync, createGzip } from 'node:zlib';
import LZString from 'lz-string';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EVENTS_PER_RECORD } from '../../../streams';
import { capturedIn } from '../../support/captured';
import { startTestServer, type TestServer } from '../../support/server';
import { settle } from '../../support/posthog';
import { json } from '../../support/json';

let s: TestServer;
let token: string;
beforeAll(async () => {
  s = await startTestServer();
  token = s.credentials.project_api_key;
});
afterAll(() => s.close());

const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(`${s.url}${path}`, { method: 'POST', body, headers });
const eventsOf = async (distinctId: string) => {
  await settle(s);
  return (await json(await s.api(`/api/projects/${s.credentials.project_id}/events/?distinct_id=${encodeURIComponent(distinctId)}&limit=1000`))).results;
};
async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  const body = await json(res);
  expect(body).toMatchObject({ code, attr: null });
  expect(typeof body.type).toBe('string');
  return body;
}

describe('ingestion over HTTP: paths and body forms', () => {
  it('accepts every path, with and without trailing slash, answering {"status": 1}', async () => {
    const paths = ['/capture', '/capture/', '/batch', '/batch/', '/e', '/e/', '/i/v0/e', '/i/v0/e/', '/track', '/track/', '/engage', '/engage/'];
    for (const path of paths) {
      const res = await post(path, JSON.stringify({ api_key: token, event: 'path test', distinct_id: `path-${path}` }), { 'content-type': 'application/json' });
      expect(res.status, path).toBe(200);
      expect(await json(res)).toEqual({ status: 1 });
    }
    for (const path of paths) expect(await eventsOf(`path-${path}`), path).toHaveLength(1);
  });

  it('decodes JSON, text/plain, no content type, form data= (plain and base64), gzip (header, query, magic), lz64, base64, GET data=', async () => {
    const event = (id: string) => ({ api_key: token, event: 'form test', distinct_id: id, properties: { unicode: 'héllo ✓' } });
    const j = (id: string) => JSON.stringify(event(id));
    const cases: [string, () => Promise<Response>][] = [
      ['json', () => post('/capture/', j('json'), { 'content-type': 'application/json' })],
      ['text', () => post('/capture/', j('text'), { 'content-type': 'text/plain' })],
      ['none', () => post('/capture/', Buffer.from(j('none')))],
      ['form', () => post('/e/', `data=${encodeURIComponent(j('form'))}`, { 'content-type': 'application/x-www-form-urlencoded' })],
      ['form64', () => post('/e/', `data=${encodeURIComponent(Buffer.from(j('form64')).toString('base64'))}`, { 'content-type': 'application/x-www-form-urlencoded' })],
      ['gzip-header', () => post('/batch/', gzipSync(JSON.stringify({ api_key: token, batch: [event('gzip-header')] })), { 'content-encoding': 'gzip', 'content-type': 'application/json' })],
      ['gzip-query', () => post('/e/?compression=gzip-js', gzipSync(j('gzip-query')), { 'content-type': 'text/plain' })],
      ['gzip-magic', () => post('/e/', gzipSync(j('gzip-magic')))],
      ['lz64', () => post('/e/?compression=lz64', `data=${encodeURIComponent(LZString.compressToBase64(j('lz64')))}`, { 'content-type': 'application/x-www-form-urlencoded' })],
      ['lz64-form', () => post('/e/', `data=${encodeURIComponent(LZString.compressToBase64(j('lz64-form')))}&compression=lz64`, { 'content-type': 'application/x-www-form-urlencoded' })],
      ['base64', () => post('/e/?compression=base64', Buffer.from(j('base64')).toString('base64'), { 'content-type': 'text/plain' })],
      ['get', () => fetch(`${s.url}/e/?data=${encodeURIComponent(Buffer.from(j('get')).toString('base64'))}`)],
      ['array', () => post('/e/', JSON.stringify([event('array')]))],
    ];
    for (const [name, send] of cases) {
      const res = await send();
      expect(res.status, name).toBe(200);
    }
    for (const [name] of cases) {
      const got = await eventsOf(name);
      expect(got, name).toHaveLength(1);
      expect(got[0].properties.unicode, name).toBe('héllo ✓');
    }
  });

  it('answers every error case in the error shape and ingests nothing', async () => {
    const before = await s.runtime.log.head();
    await expectError(await post('/batch/', JSON.stringify({ batch: [{ event: 'x', properties: { distinct_id: 'a' } }] })), 401, 'missing_api_key');
    await expectError(await post('/batch/', JSON.stringify({ api_key: 'phc_unknown', batch: [] })), 401, 'invalid_api_key');
    const malformed = await expectError(await post('/capture/', '{not json'), 400, 'invalid_payload');
    expect(malformed.detail).toMatch(/^Malformed request data/);
    await expectError(await post('/capture/', ''), 400, 'no_data');
    await expectError(await post('/capture/', gzipSync('{"truncated'), { 'content-encoding': 'gzip' }), 400, 'invalid_payload');
    await expectError(await post('/capture/', deflateSync('x').subarray(0, 3), { 'content-encoding': 'gzip' }), 400, 'invalid_payload');
    // A personal key is not a project key.
    await expectError(await post('/capture/', JSON.stringify({ api_key: s.credentials.personal_api_key, event: 'x', distinct_id: 'y' })), 401, 'invalid_api_key');
    expect(await s.runtime.log.head()).toBe(before);
  });

  it('refuses bodies over the limits with 413, and a gzip bomb without inflating it', async () => {
    const big = JSON.stringify({ api_key: token, event: 'big', distinct_id: 'big', properties: { blob: 'x'.repeat(3 * 1024 * 1024) } });
    await expectError(await post('/capture/', big), 413, 'request_too_large');
    // 256 MiB of zeros inside ~250 KB: refused at the decompressed limit, never inflated whole.
    const bomb = await gzipBomb(256);
    const rss = process.memoryUsage().rss;
    await expectError(await post('/batch/', bomb, { 'content-encoding': 'gzip' }), 413, 'request_too_large');
    expect(process.memoryUsage().rss - rss).toBeLessThan(256 * 1024 * 1024);
  });

  it('answers 200 but records a warning for no name, no distinct_id, empty distinct_id', async () => {
    const res = await post('/batch/', JSON.stringify({
      api_key: token,
      batch: [
        { properties: { distinct_id: 'nameless' } },
        { event: 'no id', properties: {} },
        { event: 'empty id', properties: { distinct_id: '' } },
        { event: 'kept', properties: { distinct_id: 'warned-batch' } },
      ],
    }));
    expect(res.status).toBe(200);
    expect(await eventsOf('warned-batch')).toHaveLength(1);
    expect(await eventsOf('nameless')).toHaveLength(0);
    const warnings = (await json(await s.api(`/api/projects/${s.credentials.project_id}/ingestion_warnings/`))).results;
    const types = warnings.map((w: { type: string }) => w.type);
    expect(types).toEqual(expect.arrayContaining(['missing_event_name', 'missing_distinct_id', 'empty_distinct_id']));
  });

  it('lets browsers call from any origin (CORS preflight and headers on ingestion and flags)', async () => {
    for (const path of ['/e/', '/batch/', '/decide/', '/flags/']) {
      const pre = await fetch(`${s.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(pre.status, path).toBe(200);
      expect(pre.headers.get('access-control-allow-methods'), path).toContain('POST');
      expect(pre.headers.get('access-control-allow-headers'), path).toBe('content-type');
    }
    const res = await post('/e/', JSON.stringify({ api_key: token, event: 'cors', distinct_id: 'cors-user' }), { origin: 'https://shop.example' });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  });

  it('counts a re-sent batch once (same project and uuid)', async () => {
    const batch = Array.from({ length: 20 }, (_, i) => ({
      event: 'dedup',
      uuid: `0190a3c4-0000-7000-8000-${String(i).padStart(12, '0')}`,
      properties: { distinct_id: 'dedup-user' },
    }));
    for (let i = 0; i < 3; i++) expect((await post('/batch/', JSON.stringify({ api_key: token, batch }))).status).toBe(200);
    expect(await eventsOf('dedup-user')).toHaveLength(20);
  });

  it('stamps $ip from X-Forwarded-For and corrects client clock skew with sent_at', async () => {
    const sentAt = new Date(Date.now() + 3600_000).toISOString();
    const timestamp = new Date(Date.now() + 3600_000 - 60_000).toISOString();
    await post('/batch/', JSON.stringify({ api_key: token, sent_at: sentAt, batch: [{ event: 'skewed', timestamp, properties: { distinct_id: 'skew' } }] }), {
      'x-forwarded-for': '81.2.69.142:4711, 10.0.0.1',
    });
    const [e] = await eventsOf('skew');
    expect(e.properties.$ip).toBe('81.2.69.142');
    expect(e.properties.$geoip_country_code).toBe('GB');
    const skewMs = Date.now() - 60_000 - Date.parse(e.timestamp);
    expect(Math.abs(skewMs)).toBeLessThan(10_000);
  });

  it('keeps a 200,000-event historical batch in request order', async () => {
    const n = 200_000;
    const t0 = Date.UTC(2020, 0, 1);
    const batch = Array.from({ length: n }, (_, i) => ({
      event: 'historical',
      timestamp: new Date(t0 + (n - i) * 1000).toISOString(), // deliberately descending: order must follow the request
      properties: { distinct_id: `h-${i % 100}`, seq: i },
    }));
    const body = gzipSync(JSON.stringify({ api_key: token, historical_migration: true, batch }));
    const before = await s.runtime.log.head();
    const res = await post('/batch/', body, { 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    const records = await s.runtime.log.readAll({ afterPosition: before, maxCount: n + 10 });
    // One atomic append of records holding at most MAX_EVENTS_PER_RECORD events each.
    expect(records).toHaveLength(n / MAX_EVENTS_PER_RECORD);
    expect(records.every((r) => r.type === 'EventsCaptured')).toBe(true);
    const appended = capturedIn(records);
    expect(appended).toHaveLength(n);
    expect(appended.every((e, i) => (e.properties as { seq: number }).seq === i)).toBe(true);
    expect(appended.every((e) => e.historical_migration)).toBe(true);
    await settle(s);
    const count = s.runtime.stores!.readmodels.prepare("SELECT count(*) AS n FROM events WHERE event = 'historical'").get() as { n: number };
    expect(count.n).toBe(n);
  });
});

/** Streams `mib` MiB of zeros through gzip without ever holding them. */
async function gzipBomb(mib: number): Promise<Buffer> {
  const gz = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gz.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((resolve) => gz.on('end', resolve));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < mib; i++) if (!gz.write(zeros)) await new Promise((r) => gz.once('drain', r));
  gz.end();
  await done;
  return Buffer.concat(out);
}
