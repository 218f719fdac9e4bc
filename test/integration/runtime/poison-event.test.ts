import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verify } from '../../../src/app/verify';
import { openRuntime } from '../../../src/app';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { storeFiles } from '../../../src/runtime/store-files';
import { kill9, runBuilt } from '../../support/child';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp-dir';

type Health = { status: string; log_head: number; projections: Record<string, number>; quarantined: { count: number; latest: Record<string, unknown>[] } };

/** `npm start`'s entry in a child process (projections folding in the worker thread, as in production). */
async function startService(dir: string) {
  const server = runBuilt({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'info', PRINT_CREDENTIALS: 'false' });
  const listening = await server.waitForLine((l) => l.includes('Server listening'));
  const url = /listening at (http:\/\/[^"\s]+)/.exec(listening)![1];
  const creds = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as { project_api_key: string; personal_api_key: string; project_id: number };
  const api = async (path: string) => {
    const res = await fetch(url + path, { headers: { authorization: `Bearer ${creds.personal_api_key}` } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as { results: Record<string, unknown>[] };
  };
  /** /_health once every projection has applied the whole log (the worker reports progress asynchronously). */
  const caughtUp = async (): Promise<{ code: number; body: Health }> => {
    for (let i = 0; ; i++) {
      const res = await fetch(`${url}/_health`);
      const body = (await res.json()) as Health;
      if (Object.values(body.projections).every((p) => p >= body.log_head) || i > 500) return { code: res.status, body };
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const send = (path: string, body: string) => fetch(url + path, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  const eventsOf = async (distinctId: string) =>
    (await api(`/api/projects/${creds.project_id}/events/?distinct_id=${encodeURIComponent(distinctId)}`)).results;
  const stop = async () => {
    kill9(server.child);
    await server.exited;
  };
  return { url, creds, caughtUp, send, api, eventsOf, stop };
}

describe('a lone surrogate cannot wedge the service', () => {
  it('inside a /batch/ with good events, then a restart: healthy, every event applied with U+FFFD, verify and replay exit 0', async () => {
    const dir = tempDir('poison-boundary-');
    let s = await startService(dir);
    const token = s.creds.project_api_key;
    // Written as raw JSON text: `\ud800` is the escape a client sends, JSON.parse makes it a lone surrogate.
    const batch = `{"api_key":"${token}","batch":[{"event":"good","distinct_id":"before"},{"event":"x","distinct_id":"a\\ud800b","properties":{"\\udc00k":"v\\ud800"}},{"event":"good","distinct_id":"after"}]}`;
    expect((await s.send('/batch/', batch)).status).toBe(200);
    expect((await s.send('/capture/', `{"api_key":"${token}","event":"x","distinct_id":"a\\ud800b"}`)).status).toBe(200);
    expect(await s.caughtUp()).toMatchObject({ code: 200, body: { status: 'ok', quarantined: { count: 0 } } });

    await s.stop();
    s = await startService(dir);
    expect((await s.send('/batch/', `{"api_key":"${token}","batch":[{"event":"good","distinct_id":"later"}]}`)).status).toBe(200);
    expect(await s.caughtUp()).toMatchObject({ code: 200, body: { status: 'ok' } });
    for (const id of ['before', 'after', 'later']) expect(await s.eventsOf(id), id).toHaveLength(1);
    const replaced = await s.eventsOf('a\uFFFDb');
    expect(replaced).toHaveLength(2);
    expect(replaced.map((e) => e.distinct_id)).toEqual(['a\uFFFDb', 'a\uFFFDb']);
    expect(replaced.find((e) => e.event === 'x' && (e.properties as Record<string, unknown>)['\uFFFDk'] === 'v\uFFFD')).toBeDefined();
    await s.stop();

    expect(cli(dir, ['verify']).code).toBe(0);
  }, 60_000);

  it('a log poisoned by an earlier version: the bad captured event is quarantined, the rest of its record and later ones applied', async () => {
    const dir = tempDir('poison-log-');
    expect(cli(dir, ['bootstrap', '--json']).code).toBe(0);
    const { project_id: projectId } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as { project_id: number };
    const captured = (distinctId: string, i: number) => ({
      uuid: `0190a000-0000-7000-8000-00000000000${i}`,
      event: 'old',
      distinct_id: distinctId,
      properties: {},
      timestamp: '2024-01-01T00:00:00.000Z',
      sent_at: null,
      received_at: '2024-01-01T00:00:00.000Z',
      ip: null,
      historical_migration: false,
    });
    // What the boundary let through before it normalised: a distinct id holding a lone surrogate.
    const log = new SqliteEventLog(storeFiles(dir).log);
    const poisoned = log.appendSync(
      `ingest-${projectId}`,
      [{ type: 'EventsCaptured', data: { events: [captured('p-before', 1), captured('a\ud800b', 2), captured('p-after', 3)] } }],
      { context: { actor: { type: 'project_key', projectId }, projectId } },
    ).lastPosition;
    await log.close();

    let s = await startService(dir);
    const health = await s.caughtUp();
    expect(health.code).toBe(200);
    expect(health.body.status).toBe('degraded');
    expect(health.body.quarantined.count).toBe(1);
    expect(health.body.quarantined.latest[0]).toMatchObject({ projection: 'ingestion', position: poisoned, part: 1, stream_id: `ingest-${projectId}`, event_type: 'EventsCaptured', project_id: projectId });
    expect(health.body.quarantined.latest[0].error).toMatch(/URI malformed/);
    expect((await s.send('/capture/', `{"api_key":"${s.creds.project_api_key}","event":"good","distinct_id":"p-later"}`)).status).toBe(200);
    await s.caughtUp();
    for (const id of ['p-before', 'p-after', 'p-later']) expect(await s.eventsOf(id), id).toHaveLength(1);
    const warnings = (await s.api(`/api/projects/${projectId}/ingestion_warnings/`)).results;
    expect(warnings).toContainEqual(
      expect.objectContaining({ type: 'event_quarantined', source: 'ingestion', details: expect.objectContaining({ position: poisoned, index: 1, eventUuid: captured('', 2).uuid }) }),
    );

    // The start-up that used to exit now serves, still reporting the quarantine.
    await s.stop();
    s = await startService(dir);
    expect(await s.caughtUp()).toMatchObject({ code: 200, body: { status: 'degraded', quarantined: { count: 1 } } });
    await s.stop();

    const replayed = cli(dir, ['replay']);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toMatch(/quarantined 1 event/);
    expect(cli(dir, ['verify']).code).toBe(0);

    // Quarantines that differ between live and replay fail verify.
    const db = new Database(storeFiles(dir).readmodels);
    db.prepare('DELETE FROM projection_failures').run();
    db.close();
    const differs = cli(dir, ['verify']);
    expect(differs.code).toBe(1);
    expect(differs.stdout).toMatch(/DIFF ingestion/);
  }, 60_000);

  it('verify fails when a live projection cannot reach the log head (a storage fault stops it)', async () => {
    const dir = tempDir('poison-behind-');
    expect(cli(dir, ['bootstrap', '--json']).code).toBe(0);
    const runtime = openRuntime({ dataDir: dir });
    await runtime.runner.catchUp();
    const before = await runtime.log.head();
    // A read-only read-model store: the next write of any projection fails with SQLITE_READONLY.
    runtime.stores!.readmodels.pragma('query_only = ON');
    await runtime.log.append('ingest-1', [{ type: 'IngestionWarningRaised', data: { type: 't', source: 'capture', details: {} } }], {
      expectedRevision: 'any',
      context: { actor: { type: 'system' }, projectId: 1 },
    });
    const result = await verify(runtime, dir);
    expect(result.ok).toBe(false);
    const ingestion = result.rows.find((r) => r.projection === 'ingestion')!;
    expect(ingestion).toMatchObject({ position: before, atHead: false });
    expect(result.failures.ingestion).toMatch(/readonly|read-only|query_only/i);
    await runtime.close();
  });
});
