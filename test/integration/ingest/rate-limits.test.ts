import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';

let s: TestServer;
let bytes: TestServer;
beforeAll(async () => {
  [s, bytes] = await Promise.all([
    startTestServer({ env: { INGEST_EVENTS_PER_SECOND: '5', INGEST_HISTORICAL_EVENTS_PER_SECOND: '3' } }),
    startTestServer({ env: { INGEST_BYTES_PER_MINUTE: '3000' } }),
  ]);
});
afterAll(async () => {
  await s.close();
  await bytes.close();
});

const batch = (server: TestServer, n: number, extra: Record<string, unknown> = {}) =>
  fetch(`${server.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: server.credentials.project_api_key, ...extra, batch: Array.from({ length: n }, (_, i) => ({ event: 'e', distinct_id: `d${i}` })) }),
  });

async function expectThrottled(res: Response, retryAfter: number, limit: RegExp) {
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toBe(String(retryAfter));
  expect(await json(res)).toEqual({ type: 'throttled_error', code: 'throttled', detail: expect.stringMatching(limit), attr: null });
}

describe('per-project ingestion limits over HTTP', () => {
  it('answers 429 with Retry-After past the events-per-second burst, appending nothing', async () => {
    expect((await batch(s, 5)).status).toBe(200);
    const head = await s.runtime.log.head();
    await expectThrottled(await batch(s, 5), 1, /events per second/);
    await expectThrottled(
      await fetch(`${s.url}/capture/`, { method: 'POST', body: JSON.stringify({ api_key: s.credentials.project_api_key, event: 'e', distinct_id: 'x' }) }),
      1,
      /events per second/,
    );
    expect(await s.runtime.log.head()).toBe(head);
  });

  it('limits historical migration on its own budget', async () => {
    // Live traffic is over its limit (previous test); historical batches still fit in theirs.
    expect((await batch(s, 3, { historical_migration: true })).status).toBe(200);
    await expectThrottled(await batch(s, 3, { historical_migration: true }), 1, /historical migration events per second/);
  });

  it('refuses a bad key before counting anything against a project (401, not 429)', async () => {
    const res = await fetch(`${s.url}/batch/`, { method: 'POST', body: JSON.stringify({ api_key: 'phc_nope', batch: [{ event: 'e', distinct_id: 'd' }] }) });
    expect(res.status).toBe(401);
  });

  it('answers 429 past the bytes-per-minute budget, with the wait it takes to fit', async () => {
    const padded = (pad: number) =>
      fetch(`${bytes.url}/capture/`, {
        method: 'POST',
        body: JSON.stringify({ api_key: bytes.credentials.project_api_key, event: 'e', distinct_id: 'd', properties: { pad: 'x'.repeat(pad) } }),
      });
    expect((await padded(2000)).status).toBe(200);
    const head = await bytes.runtime.log.head();
    // About 1.1 kB more than what is left, at 50 bytes per second: some 20 s.
    const res = await padded(2000);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(18);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(25);
    expect((await json(res)).detail).toMatch(/bytes per minute/);
    expect(await bytes.runtime.log.head()).toBe(head);
  });
});
