import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDING_BODY_LIMIT, RECORDING_DECOMPRESSED_LIMIT, RecordingIngest } from '../../../src/recordings';
import { recordingStream } from '../../../streams';
import { json, type Json } from '../../support/json';
import { settle } from '../../support/posthog';
import type { TestServer } from '../../support/server';
import { keyWith } from '../experiments/helpers';
import { rrweb, sendSnapshots, startRecordingServer, snapshotEvent, snapshotRequest, type Rrweb } from './snapshots';

let s: TestServer;
let token: string;
let base: string;
const t0 = Date.UTC(2026, 10, 20, 12, 0, 0);

beforeAll(async () => {
  ({ s, token, base } = await startRecordingServer());
});
afterAll(() => s.close());

const snap = (sessionId: string, windowId: string, data: Rrweb[], distinctId = 'rec-user') =>
  snapshotEvent(token, { sessionId, windowId, distinctId, data });

async function accepted(res: Response) {
  expect(res.status, await res.clone().text()).toBe(200);
  expect(await json(res)).toEqual({ status: 1 });
}

const lines = (text: string): [string, Rrweb][] => text.trim().split('\n').map((l) => JSON.parse(l));

describe('session recordings over HTTP', () => {
  it('stores two windows sent out of order in every compression, lists the session and returns its snapshots in time order', async () => {
    const person = await fetch(`${s.url}/capture/`, {
      method: 'POST',
      body: JSON.stringify({ api_key: token, event: '$pageview', distinct_id: 'rec-user', properties: { $set: { email: 'rec@example.com' } } }),
    });
    expect(person.status).toBe(200);
    const session = '0192d0f1-aaaa-7bbb-8ccc-000000000001';
    // The second tab's buffer arrives first; the first tab's opening full snapshot after it.
    const res = [
      await sendSnapshots(s.url, [snap(session, 'w2', [rrweb.meta(t0 + 5000, 'https://app.example/other'), rrweb.full(t0 + 5000), rrweb.click(t0 + 6000)])], 'gzip-js'),
      await sendSnapshots(s.url, [snap(session, 'w1', [rrweb.meta(t0, 'https://app.example/start'), rrweb.full(t0)]), snap(session, 'w1', [rrweb.move(t0 + 1000), rrweb.input(t0 + 2000)])], 'gzip-js-query'),
      await sendSnapshots(s.url, [snap(session, 'w1', [rrweb.click(t0 + 9000), rrweb.consoleError(t0 + 9500)])], 'base64'),
      await sendSnapshots(s.url, [snap(session, 'w1', [rrweb.move(t0 + 3000)])], 'lz64'),
      await sendSnapshots(s.url, [snap(session, 'w1', [rrweb.click(t0 + 12000)])], 'none'),
    ];
    for (const r of res) {
      expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example');
      await accepted(r);
    }
    await settle(s);

    const list = await json(await s.api(`${base}/`));
    const item = list.results.find((r: Json) => r.id === session);
    const personUuid = await s.runtime.queries.ingestion.personIdOf(s.credentials.project_id, 'rec-user');
    expect(item).toMatchObject({
      id: session,
      distinct_id: 'rec-user',
      recording_duration: 12,
      start_time: new Date(t0).toISOString(),
      end_time: new Date(t0 + 12000).toISOString(),
      start_url: 'https://app.example/start',
      click_count: 3,
      keypress_count: 1,
      console_error_count: 1,
      snapshot_source: 'web',
      snapshot_count: 11,
      person: { uuid: personUuid, name: 'rec@example.com', distinct_ids: ['rec-user'] },
    });
    expect(await json(await s.api(`${base}/${session}/`))).toEqual(item);

    const sources = await json(await s.api(`${base}/${session}/snapshots`));
    expect(sources.sources.map((x: Json) => x.blob_key)).toEqual(['0', '1', '2', '3', '4']);
    expect(sources.sources[0]).toEqual({ source: 'blob_v2', start_timestamp: new Date(t0 + 5000).toISOString(), end_timestamp: new Date(t0 + 6000).toISOString(), blob_key: '0' });

    const all = await s.api(`${base}/${session}/snapshots?source=blob_v2`);
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toMatch(/^application\/jsonl/);
    const got = lines(await all.text());
    expect(got.map(([w, e]) => [w, e.type, (e.timestamp as number) - t0])).toEqual([
      ['w1', 4, 0],
      ['w1', 2, 0],
      ['w1', 3, 1000],
      ['w1', 3, 2000],
      ['w1', 3, 3000],
      ['w2', 4, 5000],
      ['w2', 2, 5000],
      ['w2', 3, 6000],
      ['w1', 3, 9000],
      ['w1', 6, 9500],
      ['w1', 3, 12000],
    ]);
    expect(got[1][1]).toEqual(rrweb.full(t0)); // the DOM (non-ASCII text included) comes back as sent

    const first = await s.api(`${base}/${session}/snapshots?source=blob_v2&blob_key=0`);
    expect(first.headers.get('cache-control')).toBe('max-age=3600');
    expect(lines(await first.text()).map(([w]) => w)).toEqual(['w2', 'w2', 'w2']);
    const range = lines(await (await s.api(`${base}/${session}/snapshots?source=blob_v2&start_blob_key=3&end_blob_key=4`)).text());
    expect(range.map(([, e]) => (e.timestamp as number) - t0)).toEqual([3000, 12000]);

    // Kept apart from analytics events: five records on the recordings stream, no $snapshot row.
    const records = await s.runtime.log.readStream(recordingStream(s.credentials.project_id));
    expect(records.map((r) => r.type)).toEqual(Array(5).fill('RecordingSnapshotsCaptured'));
    const rows = s.runtime.stores!.readmodels.prepare("SELECT count(*) AS n FROM events WHERE event LIKE '$snapshot%'").get() as { n: number };
    expect(rows.n).toBe(0);
  });

  it('one request holding two sessions stores each; the list is newest first and pages with limit/offset', async () => {
    const a = 'page-a';
    const b = 'page-b';
    const c = 'page-c';
    await accepted(await sendSnapshots(s.url, [snap(a, a, [rrweb.full(t0 + 100_000)], 'u-a'), snap(b, b, [rrweb.full(t0 + 200_000)], 'u-b')]));
    await accepted(await sendSnapshots(s.url, [snap(c, c, [rrweb.full(t0 + 300_000), rrweb.click(t0 + 301_000)], 'u-c')]));
    await settle(s);
    const page1 = await json(await s.api(`${base}/?limit=2`));
    expect(page1.results.map((r: Json) => r.id)).toEqual([c, b]);
    expect(page1.has_next).toBe(true);
    expect(page1.next).toContain('offset=2');
    const page2 = await json(await s.api(`${base}/?limit=2&offset=2`));
    expect(page2.results.map((r: Json) => r.id)).toEqual([a, '0192d0f1-aaaa-7bbb-8ccc-000000000001']);
    expect(page2.count).toBe(4);
    // No person was ever made for these ids: the recording lists without one.
    expect(page1.results[0]).toMatchObject({ distinct_id: 'u-c', person: null, recording_duration: 1 });
  });

  it('bad bodies are a 400 in the error shape and append nothing; keys are checked', async () => {
    const head = await s.runtime.log.head();
    const good = (over: Record<string, unknown>) => {
      const e = snap('bad-1', 'w', [rrweb.full(t0)]);
      return [{ ...e, properties: { ...e.properties, ...over } }];
    };
    const bodies: [string, Response][] = [
      ['no session id', await sendSnapshots(s.url, good({ $session_id: undefined }))],
      ['session id with a slash', await sendSnapshots(s.url, good({ $session_id: 'a/b' }))],
      ['session id of 71 chars', await sendSnapshots(s.url, good({ $session_id: 'x'.repeat(71) }))],
      ['no snapshot data', await sendSnapshots(s.url, good({ $snapshot_data: undefined }))],
      ['snapshot data of numbers', await sendSnapshots(s.url, good({ $snapshot_data: [1, 2] }))],
      ['no distinct id', await sendSnapshots(s.url, good({ distinct_id: undefined }))],
      ['no rrweb events', await sendSnapshots(s.url, good({ $snapshot_data: [] }))],
      ['not JSON', await fetch(`${s.url}/s/`, { method: 'POST', headers: { 'content-type': 'text/plain', origin: 'https://app.example' }, body: '{"nope' })],
      ['broken gzip', await fetch(`${s.url}/s/?compression=gzip-js`, { method: 'POST', headers: { origin: 'https://app.example' }, body: Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]) })],
      ['empty body', await fetch(`${s.url}/s/`, { method: 'POST', headers: { origin: 'https://app.example' } })],
    ];
    for (const [name, res] of bodies) {
      const body = await json(res);
      expect(res.status, `${name}: ${JSON.stringify(body)}`).toBe(400);
      expect(Object.keys(body).sort(), name).toEqual(['attr', 'code', 'detail', 'type']);
      expect(res.headers.get('access-control-allow-origin'), name).toBe('https://app.example');
    }
    const e = snap('bad-2', 'w', [rrweb.full(t0)]);
    const noToken = await sendSnapshots(s.url, [{ ...e, properties: { ...e.properties, token: undefined } }]);
    expect(noToken.status).toBe(401);
    expect((await json(noToken)).code).toBe('missing_api_key');
    const wrongToken = await sendSnapshots(s.url, [{ ...e, properties: { ...e.properties, token: 'phc_nope' } }]);
    expect(wrongToken.status).toBe(401);
    expect((await sendSnapshots(s.url, [])).status).toBe(401); // an empty batch names no project
    expect(await s.runtime.log.head()).toBe(head);

    const preflight = await fetch(`${s.url}/s/`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('a record stored in the version 1 shape (a window id on every line) is listed and served the same', async () => {
    const session = 'stored-v1';
    const lines: [string, Rrweb][] = [
      ['w1', rrweb.meta(t0 + 500_000, 'https://app.example/v1')],
      ['w1', rrweb.full(t0 + 500_000)],
      ['w2', rrweb.click(t0 + 501_000)],
    ];
    const data = { session_id: session, distinct_id: 'v1-user', snapshot_source: 'web', lib: 'web', received_at: new Date(t0).toISOString(), snapshots: lines, snapshot_bytes: Buffer.byteLength(JSON.stringify(lines)) };
    const projectId = s.credentials.project_id;
    await s.runtime.rawLog.append(recordingStream(projectId), [{ type: 'RecordingSnapshotsCaptured', data, schemaVersion: 1 }], {
      expectedRevision: 'any',
      context: { actor: { type: 'project_key', projectId }, projectId },
    });
    await settle(s);
    expect(await json(await s.api(`${base}/${session}/`))).toMatchObject({ id: session, start_url: 'https://app.example/v1', click_count: 1, snapshot_count: 3 });
    const served = await s.api(`${base}/${session}/snapshots?source=blob_v2&blob_key=0`);
    expect((await served.text()).trim().split('\n').map((l) => JSON.parse(l))).toEqual(lines);
  });

  it('the recording on/off hook: a project that does not record gets its batch answered and nothing stored', async () => {
    const ingest = new RecordingIngest({ log: s.runtime.log, projectIdForToken: s.runtime.projectIdForToken, recordingAccepted: () => false });
    const head = await s.runtime.log.head();
    const { path, init } = snapshotRequest([snap('off-1', 'w', [rrweb.full(t0)])], 'gzip-js');
    const result = await ingest.ingest({ body: init.body as Buffer, contentType: 'text/plain', query: Object.fromEntries(new URL(path, s.url).searchParams), maxDecompressedBytes: RECORDING_DECOMPRESSED_LIMIT });
    expect(result).toEqual({ projectId: s.credentials.project_id, sessions: 0, position: null });
    expect(await s.runtime.log.head()).toBe(head);
  });

  it('its own body limits: over 20 MB on the wire or 64 MB inflated is a 413 in the error shape, nothing stored', async () => {
    const head = await s.runtime.log.head();
    const wire = await fetch(`${s.url}/s/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(RECORDING_BODY_LIMIT + 1, 0x20) });
    expect(wire.status).toBe(413);
    expect(Object.keys(await json(wire)).sort()).toEqual(['attr', 'code', 'detail', 'type']);
    const big = snap('big-1', 'w', [{ type: 2, timestamp: t0, data: { blob: 'a'.repeat(RECORDING_DECOMPRESSED_LIMIT) } }]);
    const inflated = await sendSnapshots(s.url, [big], 'gzip-js');
    expect(inflated.status).toBe(413);
    expect((await json(inflated)).code).toBe('request_too_large');
    expect(await s.runtime.log.head()).toBe(head);
  });

  it('reads need session_recording:read; an unknown session or block is a 404 or 400', async () => {
    const other = await keyWith(s, ['feature_flag:read']);
    const reader = await keyWith(s, ['session_recording:read']);
    const denied = await s.api(`${base}/`, { key: other });
    expect(denied.status).toBe(403);
    expect((await json(denied)).detail).toBe("API key missing required scope 'session_recording:read'");
    expect((await s.api(`${base}/`, { key: reader })).status).toBe(200);
    expect((await s.api(`${base}/page-a/snapshots`, { key: other })).status).toBe(403);

    const missing = await s.api(`${base}/no-such-session/snapshots`);
    expect(missing.status).toBe(404);
    expect((await json(missing)).detail).toBe('Recording not found');
    expect((await s.api(`${base}/page-a/snapshots?source=blob_v2&blob_key=7`)).status).toBe(400);
    expect((await s.api(`${base}/page-a/snapshots?source=realtime`)).status).toBe(400);
  });
});
