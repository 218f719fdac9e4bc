import { randomBytes } from 'node:crypto';
import { createConnection, createServer, type Server } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../destinations/run-context';
import { makeEvents, startExportServer, type ExportServer } from './harness';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';

const HOST = PG_HOST;
const PORT = PG_PORT;
const DATABASE = PG_DATABASE;


const USER = await reachablePgUser();

describe('PostgreSQL for batch exports', () => {
  // Locally a missing server skips the suite; in CI it must fail, never skip silently.
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${HOST}:${PORT}/${DATABASE} is unreachable`).not.toBeNull();
  });
});

/** A TCP proxy to PostgreSQL on a fixed port, started late: until then the destination is "down". */
function pgProxy(port: number): Promise<Server> {
  const server = createServer((socket) => {
    const upstream = createConnection({ host: HOST, port: PORT });
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

describe.skipIf(USER === null)('Postgres destination, end to end', () => {
  let s: ExportServer;
  let admin: pg.Client;
  let schema: string;
  let proxy: Server | null = null;
  const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });

  beforeAll(async () => {
    s = await startExportServer({ start: '2024-08-01T09:30:00Z' });
    schema = `bx_e2e_${randomBytes(5).toString('hex')}`;
    admin = new pg.Client({ host: HOST, port: PORT, user: USER!, database: DATABASE });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    if (proxy) await new Promise<void>((resolve) => proxy!.close(() => resolve()));
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    await s.close();
  });

  it('retries while the database is unreachable, then inserts each event once; a re-run adds nothing', async () => {
    const port = await closedPort();
    const base = `/api/projects/${s.projectId}/batch_exports`;
    const exp = await s.call(`${base}/`, post({
      name: 'pg',
      interval: 'hour',
      destination: { type: 'Postgres', config: { user: USER, password: 'not-used-with-trust', host: '127.0.0.1', port, database: DATABASE, schema, table_name: 'exported', exclude_events: ['$pageview'] } },
    }));
    expect(exp.destination.config).not.toHaveProperty('password');
    expect(exp.destination.config).not.toHaveProperty('user');
    s.clock.set('2024-08-01T10:10:00Z');
    const events = makeEvents(60, { timestamp: (i) => new Date(Date.UTC(2024, 6, 31, 23, 0, i)).toISOString() });
    events[3].properties = { ...events[3].properties, text: 'nul \u0000 inside' };
    await s.capture(events);

    s.clock.set('2024-08-01T11:00:05Z');
    await s.tick();
    const run = (await s.call(`${base}/${exp.id}/runs/`)).results[0];
    expect(run).toMatchObject({ status: 'FailedRetryable', data_interval_start: '2024-08-01T10:00:00.000Z' });
    expect(run.latest_error).toMatch(/ECONNREFUSED|connect/);

    proxy = await pgProxy(port);
    s.clock.advance(1000);
    await s.tick();
    expect(await s.call(`${base}/${exp.id}/runs/${run.id}/`)).toMatchObject({ status: 'Completed', records_completed: 20, records_total_count: 20 });

    const rows = (await admin.query(`SELECT * FROM ${schema}.exported ORDER BY uuid`)).rows as Record<string, unknown>[];
    expect(rows).toHaveLength(20);
    const source = (await s.runtime.queries.ingestion.events(s.projectId, { limit: 1000 })).filter((e) => e.event !== '$pageview');
    expect(rows.map((r) => r.uuid)).toEqual(source.map((e) => e.uuid).sort());
    const byUuid = new Map(source.map((e) => [e.uuid, e]));
    for (const row of rows) {
      const e = byUuid.get(row.uuid as string)!;
      expect(row).toMatchObject({ event: 'signed up', distinct_id: e.distinct_id, team_id: s.projectId, ip: '127.0.0.1', site_url: null, elements: null });
      expect((row.timestamp as Date).toISOString()).toBe(e.timestamp);
      expect(row.properties).toEqual(JSON.parse(JSON.stringify(e.properties).replace('\\u0000', '')));
      expect(row.set).toEqual(e.properties.$set ?? null);
    }

    await s.call(`${base}/${exp.id}/runs/${run.id}/retry/`, post({}));
    await s.tick();
    expect((await s.call(`${base}/${exp.id}/runs/${run.id}/`)).status).toBe('Completed');
    expect((await admin.query(`SELECT count(*)::int AS n FROM ${schema}.exported`)).rows[0].n).toBe(20);
    const logs = await s.call(`${base}/${exp.id}/runs/${run.id}/logs/?search=already present`);
    expect(logs.results[0].message).toMatch(/Exported 20 records to .*exported \(20 already present from an earlier attempt\)/);
  });
});
