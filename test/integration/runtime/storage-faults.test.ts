import Database from 'better-sqlite3';
import { renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../../../src/store/storage-fault';
import type { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { LogFileGuard } from '../../../src/adapters/sqlite/storage-guard';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { tempDir } from '../../support/temp-dir';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** The default log is the SQLite file: these tests reach its connection. */
const sqliteDb = (server: TestServer) => (server.runtime.rawLog as SqliteEventLog).db;

const capture = (server: TestServer, id: string) =>
  fetch(`${server.url}/capture/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: server.credentials.project_api_key, event: 'e', distinct_id: id }),
  });
const createFlag = (server: TestServer, key: string) =>
  server.api(`/api/projects/${server.credentials.project_id}/feature_flags/`, {
    method: 'POST',
    body: JSON.stringify({ key, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }),
  });

async function expectUnavailable(res: Response, reason: string) {
  expect(res.status).toBe(503);
  expect(await json(res)).toMatchObject({ type: 'server_error', code: `storage_${reason}`, attr: null, detail: expect.any(String) });
}
async function expectHealth(server: TestServer, status: number, reason?: string) {
  const res = await fetch(`${server.url}/_health`);
  expect(res.status).toBe(status);
  const body = await json(res);
  if (reason) expect(body).toMatchObject({ status: 'unavailable', storage: { status: 'fault', reason } });
  else expect(body).toMatchObject({ status: 'ok', storage: { status: 'ok' } });
}

describe('storage faults turn writes and /_health into 503', () => {
  it('refuses the first write after the log file was unlinked, capture and management alike, and appends nothing', async () => {
    s = await startTestServer();
    expect((await capture(s, 'before')).status).toBe(200);
    await expectHealth(s, 200);
    const head = await s.runtime.log.head();
    unlinkSync(s.runtime.files.log);
    await expectUnavailable(await capture(s, 'after'), 'log_missing');
    await expectUnavailable(await createFlag(s, 'lost-flag'), 'log_missing');
    await expectHealth(s, 503, 'log_missing');
    // The connection still reads the unlinked file: nothing reached it.
    expect(await s.runtime.log.head()).toBe(head);
  });

  it('refuses writes after rm -rf of the whole data directory', async () => {
    s = await startTestServer({ dataDir: join(tempDir('rmrf-'), 'data') });
    expect((await createFlag(s, 'kept')).status).toBe(201);
    rmSync(s.dataDir, { recursive: true, force: true });
    await expectUnavailable(await capture(s, 'after'), 'log_missing');
    await expectUnavailable(await createFlag(s, 'lost'), 'log_missing');
    await expectHealth(s, 503, 'log_missing');
  });

  it('refuses writes when another file replaced the log at its path', async () => {
    s = await startTestServer();
    const other = join(s.dataDir, 'other.sqlite');
    writeFileSync(other, '');
    renameSync(other, s.runtime.files.log);
    await expectUnavailable(await capture(s, 'after'), 'log_replaced');
    await expectHealth(s, 503, 'log_replaced');
  });

  it('answers 503 disk_full on a real SQLITE_FULL, and recovers once space is back', async () => {
    s = await startTestServer();
    const db = sqliteDb(s);
    // The log may not grow past its current pages: SQLite fails the append with SQLITE_FULL.
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages}`);
    const big = { api_key: s.credentials.project_api_key, batch: Array.from({ length: 50 }, (_, i) => ({ event: 'big', distinct_id: `d${i}`, properties: { pad: 'x'.repeat(2000) } })) };
    const head = await s.runtime.log.head();
    const full = await fetch(`${s.url}/batch/`, { method: 'POST', body: JSON.stringify(big), headers: { 'content-type': 'application/json' } });
    await expectUnavailable(full, 'disk_full');
    await expectHealth(s, 503, 'disk_full');
    expect(await s.runtime.log.head()).toBe(head);
    db.pragma('max_page_count = 4294967294');
    expect((await capture(s, 'room again')).status).toBe(200);
    await expectHealth(s, 200);
  });

  it('answers 503 read_only on a real SQLITE_READONLY from the log connection', async () => {
    s = await startTestServer();
    sqliteDb(s).pragma('query_only = ON');
    await expectUnavailable(await capture(s, 'ro'), 'read_only');
    await expectHealth(s, 503, 'read_only');
    sqliteDb(s).pragma('query_only = OFF');
    expect((await capture(s, 'rw')).status).toBe(200);
    await expectHealth(s, 200);
  });

  it('maps SQLITE_READONLY from a connection opened read-only on the real log file', () => {
    const dir = tempDir('ro-');
    const path = join(dir, 'events.sqlite');
    new Database(path).exec('CREATE TABLE t (x)');
    const guard = new LogFileGuard(path);
    const ro = new Database(path, { readonly: true });
    let thrown: unknown;
    try {
      ro.exec('INSERT INTO t VALUES (1)');
    } catch (err) {
      thrown = guard.translate(err);
    }
    expect(thrown).toBeInstanceOf(StorageUnavailableError);
    expect((thrown as StorageUnavailableError).fault.reason).toBe('read_only');
    expect(guard.fault()?.reason).toBe('read_only');
    guard.afterWrite();
    expect(guard.fault()).toBeNull();
  });
});
