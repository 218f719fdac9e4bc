// A service killed with SIGKILL in the middle of an export leaves its run Running; the next start
// of the same installation takes the run over at once (not after EXPORT_LEASE_MS, 15 minutes by
// default) and completes it, with every record exactly once at the destination.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kill9, runBuilt } from '../../support/child';
import { json } from '../../support/json';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { tempDir } from '../../support/temp-dir';

const USER = await reachablePgUser();
const HOUR = 3_600_000;
const EVENTS = 50;

describe('PostgreSQL for the reclaim test', () => {
  // Locally a missing server skips the suite; in CI it must fail, never skip silently.
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
  });
});

describe.skipIf(USER === null)('a restarted service reclaims the runs its killed start left Running', () => {
  const dataDir = tempDir('reclaim-');
  const schema = `reclaim_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let locker: pg.Client;

  const env = {
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'info',
    PRINT_CREDENTIALS: 'false',
    EXPORT_SCHEDULER_INTERVAL_MS: '100',
    EXPORT_WORKER_POLL_MS: '100',
    EXPORT_ALLOWED_HOSTS: PG_HOST,
  };

  async function start() {
    const server = runBuilt(env);
    const line = await server.waitForLine((l) => /listening at http/.test(l), 60_000);
    const url = /listening at (http:\/\/[^"\s]+)/.exec(line)![1];
    return { server, url };
  }

  beforeAll(async () => {
    admin = new pg.Client({ host: PG_HOST, port: PG_PORT, user: USER!, database: PG_DATABASE });
    locker = new pg.Client({ host: PG_HOST, port: PG_PORT, user: USER!, database: PG_DATABASE });
    await admin.connect();
    await locker.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await locker.end().catch(() => undefined);
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });

  it('takes the run over on start-up, well before the lease ends, and records each event once', async () => {
    const first = await start();
    const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const headers = { authorization: `Bearer ${credentials.personal_api_key}`, 'content-type': 'application/json' };
    const api = (url: string, path: string, body?: unknown) =>
      fetch(url + path, { method: body === undefined ? 'GET' : 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const base = `/api/projects/${credentials.project_id}/batch_exports`;

    const hourStart = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    const batch = Array.from({ length: EVENTS }, (_, i) => ({ event: 'e', distinct_id: `u${i % 5}`, timestamp: new Date(hourStart + i * 1000).toISOString(), properties: { i } }));
    const captured = await fetch(`${first.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ api_key: credentials.project_api_key, batch })),
    });
    expect(captured.status).toBe(200);

    // The destination table exists and is locked: the first start's INSERT waits on the lock.
    const config = { user: USER, password: '', host: PG_HOST, port: PG_PORT, database: PG_DATABASE, schema, table_name: 'events' };
    const created = await api(first.url, `${base}/`, { name: 'pg', interval: 'hour', destination: { type: 'Postgres', config } });
    expect(created.status).toBe(201);
    const exp = await json(created);
    const table = `${schema}.events`;
    await admin.query(`CREATE TABLE ${table} (uuid text, event text, properties jsonb, elements jsonb, set jsonb, set_once jsonb,
      distinct_id text, team_id integer, ip text, site_url text, timestamp timestamptz)`);
    await admin.query(`CREATE UNIQUE INDEX ON ${table} (uuid)`);
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    const backfill = await api(first.url, `${base}/${exp.id}/backfill/`, { start_at: new Date(hourStart).toISOString(), end_at: new Date(hourStart + HOUR).toISOString() });
    expect(backfill.status).toBe(200);

    // Wait until the export's INSERT is blocked on the lock: the run is mid-export.
    let blocked: number | null = null;
    for (let waited = 0; blocked === null && waited < 30_000; waited += 50) {
      const { rows } = await admin.query(
        `SELECT pid FROM pg_stat_activity WHERE application_name = 'eventful-analytics batch export' AND wait_event_type = 'Lock' AND query LIKE 'INSERT%'`,
      );
      blocked = rows[0]?.pid ?? null;
      if (blocked === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(blocked, 'the export never reached its INSERT').not.toBeNull();
    const [running] = (await json(await api(first.url, `${base}/${exp.id}/runs/`))).results;
    expect(running.status).toBe('Running');

    kill9(first.server.child);
    await first.server.exited;
    // The dead start's backend goes with it; then the table is free again.
    await admin.query('SELECT pg_terminate_backend($1)', [blocked]);
    await locker.query('ROLLBACK');

    const restartedAt = Date.now();
    const second = await start();
    try {
      let run: { status: string; records_completed: number | null } | undefined;
      while (Date.now() - restartedAt < 30_000) {
        run = (await json(await api(second.url, `${base}/${exp.id}/runs/${running.id}/`))) as typeof run;
        if (run!.status === 'Completed') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Far below the 15-minute lease: the restart took the run over at once.
      expect(run).toMatchObject({ status: 'Completed', records_completed: EVENTS });
      expect(Date.now() - restartedAt).toBeLessThan(30_000);
      const { rows } = await admin.query(`SELECT count(*)::int AS n, count(DISTINCT uuid)::int AS d FROM ${table}`);
      expect(rows[0]).toEqual({ n: EVENTS, d: EVENTS });
      // The attempt's log lines are appended just after its outcome.
      let logs: string[] = [];
      while (!logs.some((m) => m.startsWith('Completed:')) && Date.now() - restartedAt < 30_000) {
        logs = (await json(await api(second.url, `${base}/${exp.id}/runs/${running.id}/logs/`))).results.map((l: { message: string }) => l.message);
        if (!logs.some((m) => m.startsWith('Completed:'))) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(logs).toContain('Attempt 1 was left running by an earlier start of this worker; taking the run over');
      expect(logs.some((m: string) => m.includes('(attempt 2)'))).toBe(true);
    } finally {
      second.server.child.kill('SIGTERM');
      await second.server.exited;
    }
  });
});
