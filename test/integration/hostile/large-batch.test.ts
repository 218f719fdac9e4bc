import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { withinHealthBudget } from './loop-watch';

/**
 * Issue 21: a valid large request with a valid public key must not hold the event loop either.
 * Its body is parsed off the loop and its events reach the loop a slice per turn; the append stays
 * one. A body of millions of empty objects is refused off the loop on its count of JSON values.
 */
describe('large valid requests leave the event loop free', () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await startTestServer({ env: { PROJECTIONS_IN_WORKER: 'true' } });
    key = s.credentials.project_api_key;
  });
  afterAll(() => s.close());

  const post = (body: Buffer) =>
    fetch(`${s.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body });

  it('a 100,000-event gzip /batch/ (16 MB of JSON) is stored whole and in order', async () => {
    const n = 100_000;
    const batch = Array.from({ length: n }, (_, i) => ({
      event: 'large-batch',
      distinct_id: `u${i % 1000}`,
      properties: { $current_url: `https://example.com/${i}`, seq: i, b: 'x'.repeat(50) },
    }));
    const body = gzipSync(JSON.stringify({ api_key: key, batch }));
    const before = await s.runtime.log.head();
    const status = await withinHealthBudget(s.url, `gzip /batch/ of ${n} events`, async () => (await post(body)).status);
    expect(status).toBe(200);
    const records = await s.runtime.log.readAll({ afterPosition: before });
    const seqs = records.flatMap((r) => (r.type === 'EventsCaptured' ? (r.data as { events: Array<{ properties: { seq: number } }> }).events : [])).map((e) => e.properties.seq);
    expect(seqs).toHaveLength(n);
    expect(seqs.every((seq, i) => seq === i)).toBe(true);
  }, 120_000);

  it('a large form body (`data=` base64) takes the same path: stored whole, in order', async () => {
    const n = 20_000;
    const batch = Array.from({ length: n }, (_, i) => ({ event: 'large-form', distinct_id: `f${i % 100}`, properties: { seq: i, b: 'y'.repeat(50) } }));
    const data = Buffer.from(JSON.stringify({ api_key: key, batch })).toString('base64');
    const body = `compression=base64&data=${encodeURIComponent(data)}`;
    const before = await s.runtime.log.head();
    const status = await withinHealthBudget(s.url, `form /batch/ of ${n} events`, async () =>
      (await fetch(`${s.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })).status,
    );
    expect(status).toBe(200);
    const records = await s.runtime.log.readAll({ afterPosition: before });
    const seqs = records.flatMap((r) => (r.type === 'EventsCaptured' ? (r.data as { events: Array<{ properties: { seq: number } }> }).events : [])).map((e) => e.properties.seq);
    expect(seqs).toEqual(Array.from({ length: n }, (_, i) => i));
  }, 120_000);

  it('a 64 KB gzip of `[{},{},…]` (60 MiB, 20 M empty objects) with a valid key is refused 413 off the loop', async () => {
    const objects = 20_000_000;
    // `[{},{},…,{"api_key":"…"}]`: valid JSON naming a known key, so only its size can refuse it.
    const tail = `{"api_key":"${key}"}]`;
    const json = Buffer.alloc(1 + objects * 3 + tail.length);
    json[0] = 0x5b; // [
    json.fill('{},', 1, 1 + objects * 3);
    json.write(tail, 1 + objects * 3);
    expect(json.toString('latin1', 0, 7) + json.toString('latin1', json.length - tail.length - 3)).toBe(`[{},{},{},${tail}`);
    const body = gzipSync(json, { level: 9 });
    expect(body.length).toBeLessThan(200 * 1024);
    const res = await withinHealthBudget(s.url, '[{},{},…] with a valid key', async () => {
      const r = await post(body);
      return { status: r.status, body: (await r.json()) as { type: string; code: string } };
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ type: 'client_error', code: 'request_too_large' });
  }, 120_000);
});
