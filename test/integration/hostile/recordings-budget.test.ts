import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDING_STORED_LIMIT, SNAPSHOT_READ_BUDGET } from '../../../src/recordings';
import { recordingStream } from '../../../streams';
import { settle } from '../../support/posthog';
import type { TestServer } from '../../support/server';
import { optInToRecordings, startRecordingServer } from '../recordings/snapshots';
import { withinHealthBudget } from './loop-watch';
import { errorShapeProblem } from './raw-request';

/**
 * Issue 21, item 1: a `/s/` request is bounded by what it would store, not by what it carried; its
 * id-like fields have lengths; reading a session back never builds one unbounded string; and a
 * project that has not opted in to recordings stores nothing. Each case runs while `/_health` is
 * probed (loop-watch.ts). Payloads are built before the watched window: the test's own work on
 * this loop would count against the server.
 */
let s: TestServer;
let token: string;
let base: string;
const t0 = Date.UTC(2026, 10, 27, 12, 0, 0);

beforeAll(async () => {
  ({ s, token, base } = await startRecordingServer());
});
afterAll(() => s.close());

/** A `$snapshot` batch as current posthog-js sends it: gzip, text/plain, no compression hint. */
function gzipBatch(sessionId: string, windowId: string, data: unknown[]): Buffer {
  const event = { event: '$snapshot', properties: { $session_id: sessionId, $window_id: windowId, $snapshot_data: data, distinct_id: 'hostile', token } };
  return gzipSync(JSON.stringify([event]));
}

const post = (body: Buffer) => fetch(`${s.url}/s/`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });

/** The largest record the project's recordings stream holds, in bytes as stored (its data as JSON). */
async function largestStoredRecord(): Promise<number> {
  const records = await s.runtime.log.readStream(recordingStream(s.credentials.project_id));
  return Math.max(0, ...records.map((r) => Buffer.byteLength(JSON.stringify(r.data))));
}

async function refused(res: Response, status: number, label: string) {
  const text = await res.text();
  expect(res.status, `${label}: ${text.slice(0, 300)}`).toBe(status);
  expect(errorShapeProblem(text), label).toBeNull();
  return JSON.parse(text) as { detail: string; code: string };
}

describe('hostile: recordings within a budget (issue 21, item 1)', () => {
  it('a 278-byte gzip with a 64 KiB window id and two thousand empty events is refused, nothing stored', async () => {
    const body = gzipBatch('amplify-1', 'w'.repeat(64 * 1024), Array.from({ length: 2000 }, () => ({})));
    expect(body.length).toBeLessThan(1024);
    const head = await s.runtime.log.head();
    const res = await withinHealthBudget(s.url, '64 KiB window id x 2000 events', () => post(body));
    const error = await refused(res, 400, '64 KiB window id');
    expect(error.detail).toContain('$window_id');
    expect(await s.runtime.log.head()).toBe(head);
    expect(await largestStoredRecord()).toBeLessThanOrEqual(RECORDING_STORED_LIMIT);
  });

  it('a 1 MiB window id is a 400, not a 500', async () => {
    const body = gzipBatch('amplify-2', 'w'.repeat(1024 * 1024), Array.from({ length: 2000 }, () => ({})));
    const head = await s.runtime.log.head();
    const res = await withinHealthBudget(s.url, '1 MiB window id', () => post(body));
    await refused(res, 400, '1 MiB window id');
    expect(await s.runtime.log.head()).toBe(head);
  });

  it('an over-long $lib is a 400; a posthog User-Agent of any length gives a bounded $lib', async () => {
    const event = (props: object) => gzipSync(JSON.stringify([{ event: '$snapshot', properties: { $session_id: 'lib-1', $snapshot_data: [{ type: 2, timestamp: t0 }], distinct_id: 'd', token, ...props } }]));
    await refused(await post(event({ $lib: 'l'.repeat(201) })), 400, 'long $lib');
    const ua = await fetch(`${s.url}/s/`, { method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': `posthog-${'x'.repeat(5000)}/1.0` }, body: event({}) });
    expect(ua.status).toBe(200);
    await settle(s);
    const row = await s.runtime.recordings.queries.byId(s.credentials.project_id, 'lib-1');
    expect(row?.lib.length).toBe(200);
    expect(row?.snapshot_source).toBe('web');
  });

  it('a body naming more than the stored limit is a 413 counted on what would be stored; under it, stored within the limit', async () => {
    // Large events compress and parse cheaply: the limit is met on bytes, not on the number of events.
    const window = 'w'.repeat(70);
    const big = (n: number, size: number) => Array.from({ length: n }, (_, i) => ({ type: 2, timestamp: t0 + i, data: { text: `${i}:`.padEnd(size, 'x') } }));
    const over = gzipBatch('stored-1', window, big(5, 1_000_000));
    const under = gzipBatch('stored-2', window, big(3, 1_300_000));
    const head = await s.runtime.log.head();
    const res = await withinHealthBudget(s.url, 'stored limit: 5 x 1 MB', () => post(over));
    const error = await refused(res, 413, 'over the stored limit');
    expect(error.code).toBe('request_too_large');
    expect(await s.runtime.log.head()).toBe(head);

    // Not watched: a legitimate request near the limit costs the loop its append (the embedded log
    // writes and syncs the record synchronously), about the budget on a busy machine; see limits.ts.
    const ok = await post(under);
    expect(ok.status, await ok.clone().text()).toBe(200);
    const stored = await largestStoredRecord();
    expect(stored).toBeGreaterThan(3_900_000);
    expect(stored).toBeLessThanOrEqual(RECORDING_STORED_LIMIT);
  });

  it('tiny events on a long window id: the amplification is counted and bounded (stored within the limit)', async () => {
    const body = gzipBatch('amplify-3', 'w'.repeat(70), Array.from({ length: 45_000 }, () => ({})));
    const res = await withinHealthBudget(s.url, '45,000 empty events, 70-char window', () => post(body));
    expect(res.status, await res.clone().text()).toBe(200);
    await settle(s);
    const row = await s.runtime.recordings.queries.byId(s.credentials.project_id, 'amplify-3');
    expect(row?.snapshot_count).toBe(45_000);
    expect(row!.snapshot_bytes).toBeLessThanOrEqual(RECORDING_STORED_LIMIT);
    expect(await largestStoredRecord()).toBeLessThanOrEqual(RECORDING_STORED_LIMIT);
  });

  it('more tiny events than a request may store is a 413, nothing stored', async () => {
    const body = gzipBatch('tiny-1', 'w', Array.from({ length: 60_000 }, () => ({})));
    const head = await s.runtime.log.head();
    const res = await withinHealthBudget(s.url, '60,000 empty events', () => post(body));
    await refused(res, 413, 'too many events');
    expect(await s.runtime.log.head()).toBe(head);
  });

  it('a session of many large blocks reads back in bounded, streamed answers; a range past the budget is a 400 naming what fits', async () => {
    const session = `big-${randomUUID()}`;
    const blocks = 6;
    // Each request: three ~1.3 MB full snapshots, just under the stored limit once stored.
    for (let b = 0; b < blocks; b++) {
      const data = Array.from({ length: 3 }, (_, i) => ({ type: 2, timestamp: t0 + b * 1000 + i, data: { node: { text: `${b}:${i}:`.padEnd(1_300_000, 'x') } } }));
      const res = await post(gzipBatch(session, 'w1', data));
      expect(res.status, await res.clone().text()).toBe(200);
    }
    await settle(s);
    expect(await largestStoredRecord()).toBeLessThanOrEqual(RECORDING_STORED_LIMIT);

    const answers = await withinHealthBudget(s.url, `read back ${blocks} blocks of ~4 MB`, async () => {
      const got: { label: string; status: number; bytes: number; text: string }[] = [];
      const get = async (label: string, query: string) => {
        const res = await s.api(`${base}/${session}/snapshots${query}`);
        const text = await res.text();
        got.push({ label, status: res.status, bytes: Buffer.byteLength(text), text: res.status === 200 ? '' : text });
      };
      await get('sources', '');
      await get('whole', '?source=blob_v2');
      await get('all six', `?source=blob_v2&start_blob_key=0&end_blob_key=${blocks - 1}`);
      await get('two', '?source=blob_v2&start_blob_key=2&end_blob_key=3');
      for (let b = 0; b < blocks; b++) await get(`block ${b}`, `?source=blob_v2&blob_key=${b}`);
      return got;
    });

    for (const a of answers) expect(a.status, a.label).toBeLessThan(500);
    const by = Object.fromEntries(answers.map((a) => [a.label, a]));
    for (const label of ['whole', 'all six']) {
      expect(by[label].status, label).toBe(400);
      expect(errorShapeProblem(by[label].text), label).toBeNull();
      expect(JSON.parse(by[label].text).detail, label).toMatch(/start_blob_key=0&end_blob_key=1, then go on from 2/);
    }
    expect(by.two.status).toBe(200);
    expect(by.two.bytes).toBeLessThanOrEqual(SNAPSHOT_READ_BUDGET.bytes);
    for (let b = 0; b < blocks; b++) {
      expect(by[`block ${b}`].status).toBe(200);
      expect(by[`block ${b}`].bytes).toBeGreaterThan(3_900_000);
      expect(by[`block ${b}`].bytes).toBeLessThanOrEqual(RECORDING_STORED_LIMIT);
    }
  });

  it('with session_recording_opt_in off, /s/ answers {status:1} and stores nothing', async () => {
    const body = gzipBatch('opted-out-1', 'w1', [{ type: 2, timestamp: t0 }]);
    await optInToRecordings(s, false);
    try {
      const head = await s.runtime.log.head();
      const res = await withinHealthBudget(s.url, 'opt-in off', () => post(body));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 1 });
      expect(await s.runtime.log.head()).toBe(head);
    } finally {
      await optInToRecordings(s, true);
    }
    const res = await post(body);
    expect(res.status).toBe(200);
    await settle(s);
    expect(await s.runtime.recordings.queries.byId(s.credentials.project_id, 'opted-out-1')).toBeDefined();
  });
});
