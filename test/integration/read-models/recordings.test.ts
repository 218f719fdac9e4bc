import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingsProjection } from '../../../projections/recordings';
import { recordingQueries } from '../../../projections/recordings-queries';
import { settle } from '../../support/posthog';
import { startTestServer, type TestServer } from '../../support/server';
import { optInToRecordings, rrweb, sendSnapshots, snapshotEvent, type Rrweb } from '../recordings/snapshots';
import { bothStores, pgUserForSuite, type FoldedStores } from './folded-stores';

const USER = await pgUserForSuite();

describe.runIf(USER !== null)('recordings read model on SQLite and PostgreSQL', () => {
  const fold = bothStores(USER!, 'rm_recordings');
  let s: TestServer;
  let stores: FoldedStores;
  let projectId: number;
  const sessions = ['sess-a', 'sess-b', 'sess-c', 'sess-untimed', 'sess-d'];

  beforeAll(async () => {
    s = await startTestServer();
    await optInToRecordings(s);
    projectId = s.credentials.project_id;
    const token = s.credentials.project_api_key;
    const snap = (sessionId: string, windowId: string, data: Rrweb[], distinctId = 'visitor') => snapshotEvent(token, { sessionId, windowId, distinctId, data });
    const t0 = Date.parse('2026-03-01T10:00:00Z');
    const post = async (batch: unknown[]) => expect((await sendSnapshots(s.url, batch, 'none')).status).toBe(200);
    // Session a: two windows, chunks out of order (the later page first), clicks, input, a console error.
    await post([snap('sess-a', 'w2', [rrweb.meta(t0 + 5000, 'https://shop.example/cart'), rrweb.click(t0 + 5100), rrweb.input(t0 + 5200)])]);
    await post([snap('sess-a', 'w1', [rrweb.meta(t0, 'https://shop.example/'), rrweb.full(t0 + 1), rrweb.move(t0 + 2), rrweb.consoleError(t0 + 3)])]);
    await post([snap('sess-a', 'w1', [rrweb.click(t0 + 9000)]), snap('sess-b', 'w1', [rrweb.meta(t0 + 60_000, 'https://shop.example/b'), rrweb.full(t0 + 60_001)], 'other')]);
    await post([snap('sess-c', 'w1', [rrweb.meta(t0 + 60_000, 'https://shop.example/c')])]);
    // No usable timestamp at all: listed after every timed session.
    await post([snap('sess-untimed', 'w1', [{ type: 3, data: { source: 1, positions: [] } }])]);
    await post([snap('sess-d', 'w9', [rrweb.full(t0 - 1000)])]);
    await settle(s);
    stores = await fold(s.runtime.log, [recordingsProjection]);
  });

  afterAll(async () => {
    await stores?.close();
    await s?.close();
  });

  it('folds the same rows (equal digests)', async () => {
    const { sqlite, postgres } = await stores.digests([recordingsProjection]);
    expect(postgres).toEqual(sqlite);
    const rows = await stores.both((db) => db.all('SELECT * FROM session_recording_chunks ORDER BY project_id, session_id, seq'));
    expect(rows.postgres).toEqual(rows.sqlite);
    expect(rows.sqlite).toHaveLength(7);
  });

  it('answers every query the same', async () => {
    const check = async <T>(query: (q: ReturnType<typeof recordingQueries>) => Promise<T>) => {
      const { sqlite, postgres } = await stores.both((db) => query(recordingQueries(db)));
      expect(postgres).toEqual(sqlite);
      return sqlite;
    };
    const all = await check((q) => q.list(projectId, 100, 0));
    expect(all.count).toBe(5);
    expect(all.rows.map((r) => r.session_id)).toEqual(['sess-b', 'sess-c', 'sess-a', 'sess-d', 'sess-untimed']);
    const pages = [await check((q) => q.list(projectId, 2, 0)), await check((q) => q.list(projectId, 2, 2)), await check((q) => q.list(projectId, 2, 4))];
    expect(pages.flatMap((p) => p.rows.map((r) => r.session_id))).toEqual(all.rows.map((r) => r.session_id));
    expect((await check((q) => q.list(projectId + 1, 10, 0))).count).toBe(0);

    for (const id of sessions) {
      expect(await check((q) => q.byId(projectId, id))).toBeDefined();
      expect((await check((q) => q.chunks(projectId, id))).length).toBeGreaterThan(0);
    }
    const a = (await check((q) => q.byId(projectId, 'sess-a')))!;
    expect(a).toMatchObject({ start_url: 'https://shop.example/', chunk_count: 3, click_count: 2, keypress_count: 1, console_error_count: 1, start_ts: Date.parse('2026-03-01T10:00:00Z') });
    expect((await check((q) => q.chunks(projectId, 'sess-a'))).map((c) => c.window_ids)).toEqual([['w2'], ['w1'], ['w1']]);
    expect((await check((q) => q.byId(projectId, 'sess-untimed')))!.start_ts).toBeNull();
    expect(await check((q) => q.byId(projectId, 'nope'))).toBeUndefined();
    expect(await check((q) => q.chunks(projectId, 'nope'))).toEqual([]);
  });
});
