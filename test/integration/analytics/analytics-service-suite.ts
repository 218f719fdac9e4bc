import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clickhouseFoldedAnalytics } from '../../../src/adapters/clickhouse/folded';
import { AnalyticsFold } from '../../../src/app/analytics-fold';
import { rebuild } from '../../../src/app/replay';
import { verify } from '../../../src/app/verify';
import { INGESTION } from '../../../projections/ingestion/names';
import { createExperiment, experimentsPath } from '../experiments/helpers';
import { inParallel } from '../flags/helpers';
import { json, type Json } from '../../support/json';
import { posthogClient, settle } from '../../support/posthog';
import { startTestServer, type TestServer } from '../../support/server';
import { tempDir } from '../../support/temp-dir';
import { cli } from '../../support/cli';
import { using, type AnalyticsEngine } from './engines';

const FLAG = 'ch-checkout';
const USERS = 90;
const funnel = { insight: 'FUNNELS', events: [{ id: '$feature_flag_called', order: 0 }, { id: 'purchase', order: 1 }] };
const later = () => new Date(Date.now() + 2000);

/** Every page of the events API, following `next` (origins differ between servers: paths only). */
async function allPages(s: TestServer, query: string): Promise<Json[]> {
  const pages: Json[] = [];
  let path: string | null = `/api/projects/${s.credentials.project_id}/events/?${query}`;
  while (path !== null) {
    const res = await s.api(path);
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    pages.push(body.results);
    path = body.next ? new URL(body.next as string).pathname + new URL(body.next as string).search : null;
  }
  return pages;
}

/** What the workload's answers are: events pages (all, by event, by a merged person) and the results. */
async function answers(s: TestServer, experimentId: number) {
  const all = await allPages(s, 'limit=37');
  const purchases = await allPages(s, 'limit=25&event=purchase');
  const [newest] = (await allPages(s, 'limit=1&distinct_id=user-0'))[0] as { person_id: string }[];
  const merged = await allPages(s, `limit=5&person_id=${newest.person_id}`);
  const res = await s.api(experimentsPath(s, `${experimentId}/results/`));
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  const { last_refresh: _, ...result } = body.result as Record<string, unknown>;
  return { all, purchases, merged, result };
}

const HOUR = 3_600_000;

/**
 * The hours holding every event listed: a backfill window. From the events' own times, so its end is
 * at most an hour past the last (a backfill may end at most one interval into the future).
 */
function hoursOf(events: readonly Json[]): { start_at: string; end_at: string } {
  const times = events.map((e) => Date.parse((e as { timestamp: string }).timestamp));
  return { start_at: new Date(Math.floor(Math.min(...times) / HOUR) * HOUR).toISOString(), end_at: new Date(Math.floor(Math.max(...times) / HOUR) * HOUR + HOUR).toISOString() };
}

/**
 * A File export (JSONLines) of the window, backfilled by an export worker of the server's runtime:
 * the files it wrote, by name. The bytes, since the same history must give the same files on every
 * analytics store. Written under the data directory's default export root.
 */
async function exportedFiles(s: TestServer, name: string, window: { start_at: string; end_at: string }, hogql_query?: string): Promise<Record<string, string>> {
  const dir = join(s.dataDir, 'exports', name);
  const base = `/api/projects/${s.credentials.project_id}/batch_exports`;
  const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
  const created = await s.api(`${base}/`, post({ name, destination: { type: 'File', config: { path: dir } }, interval: 'hour', ...(hogql_query ? { hogql_query } : {}) }));
  const exp = await json(created);
  expect(created.status, JSON.stringify(exp)).toBe(201);
  // Paused: no scheduled run (by ingestion time) writes beside the backfill's.
  const paused = await s.api(`${base}/${exp.id as string}/pause/`, post({}));
  expect(paused.status, await paused.text()).toBe(200);
  const backfill = await s.api(`${base}/${exp.id as string}/backfill/`, post(window));
  expect(backfill.status, await backfill.text()).toBe(200);
  await settle(s);
  // The window's last hour ends after now: the scheduler is told a time past it.
  const scheduler = s.runtime.exports.scheduler({ now: () => new Date(Date.parse(window.end_at) + 1000) });
  try {
    await scheduler.tick();
  } finally {
    await scheduler.stop();
  }
  await settle(s);
  const worker = s.runtime.exports.worker({});
  try {
    await worker.drain();
  } finally {
    await worker.stop();
  }
  await settle(s);
  const runs = (await json(await s.api(`${base}/${exp.id as string}/runs/`))).results as { status: string; latest_error: string | null }[];
  expect(runs.length).toBeGreaterThan(0);
  expect(runs.map((r) => [r.status, r.latest_error])).toEqual(runs.map(() => ['Completed', null]));
  const files: Record<string, string> = {};
  for (const file of (await readdir(dir)).sort()) files[file] = await readFile(join(dir, file), 'utf8');
  return files;
}

/** The workload's exports: the standard model, and a hogql_query reading properties and person properties. */
const EXPORT_QUERY = "SELECT event, properties.amount AS amount, toInt(properties.amount) AS n, person_properties.plan AS plan, distinct_id FROM events WHERE event != '$identify'";

/*
 * The service on a ClickHouse analytics store: the events API and experiment results read
 * ClickHouse, which the analytics projection feeds from the log. The same data directory is then
 * served on the default store (the read models' events table, which the ingestion fold writes
 * either way): every answer must be the same, uuids and person ids included. Re-running the
 * projection from an earlier point (what a kill -9 between an insert and the next start amounts
 * to: there is no checkpoint apart from the rows) must change no answer.
 */
export function analyticsServiceSuite(engine: AnalyticsEngine): void {
  describe(`the service on a ${engine.name} analytics store`, () => {
    const dataDir = tempDir('chwire-');
    const database = `chwire_${randomBytes(6).toString('hex')}`;
    const connect = (db: string | null = database) => engine.connect(dataDir, db);
    afterAll(() => using(connect(null), (admin) => admin.serverCommand(`DROP DATABASE IF EXISTS ${database}`)));

    it('answers as the SQLite store does; a projection re-run from an earlier point duplicates nothing; verify and replay digest the tables', { timeout: 120_000 }, async () => {
      const env = engine.env(dataDir, database);
      let s = await startTestServer({ dataDir, env });
      let experimentId: number;
      let onClickHouse: Awaited<ReturnType<typeof answers>>;
      let exportWindow: { start_at: string; end_at: string };
      let filesOnClickHouse: Record<string, string>[];
      const waitForClickHouse = async (server: TestServer) => {
        await settle(server);
        await server.runtime.analyticsFold!.waitFor(await server.runtime.log.head());
      };
      try {
        const exp = await createExperiment(s, { name: 'CH', feature_flag_key: FLAG, start_date: new Date(Date.now() - 60_000).toISOString(), filters: funnel });
        experimentId = exp.id as number;
        const client = posthogClient(s);
        const ids = Array.from({ length: USERS }, (_, i) => i);
        // A third of the users are exposed anonymously, identify under their own id, then alias the
        // anonymous id in (a merge of two persons); the others are exposed and identified as themselves.
        const variants = await inParallel(ids, 8, async (i) => String(await client.getFeatureFlag(FLAG, i % 3 === 0 ? `anon-${i}` : `user-${i}`)));
        ids.forEach((i) => {
          client.identify({ distinctId: `user-${i}`, properties: { plan: i % 2 === 0 ? 'pro' : 'free' } });
          if (i % 3 === 0) client.alias({ distinctId: `user-${i}`, alias: `anon-${i}` });
          if (i % 2 === 0 || i % 3 === 0) client.capture({ distinctId: `user-${i}`, event: 'purchase', properties: { [`$feature/${FLAG}`]: variants[i], amount: i }, timestamp: later() });
        });
        await client.shutdown();
        await waitForClickHouse(s);

        onClickHouse = await answers(s, experimentId);
        // Batch exports read the ClickHouse store: compared with the default store's files below.
        exportWindow = hoursOf(onClickHouse.all.flat());
        filesOnClickHouse = [await exportedFiles(s, 'on-clickhouse', exportWindow), await exportedFiles(s, 'hogql-on-clickhouse', exportWindow, EXPORT_QUERY)];
        expect(Object.values(filesOnClickHouse[0]).join('').split('\n').length - 1).toBe(onClickHouse.all.flat().length);
        expect(Object.values(filesOnClickHouse[1]).join('')).toContain('"plan":"pro"');
        const listed = onClickHouse.all.flat().length;
        // Per user a flag call and an identify; an alias per third; the purchases.
        const buyers = ids.filter((i) => i % 2 === 0 || i % 3 === 0).length;
        expect(listed).toBe(2 * USERS + USERS / 3 + buyers);
        // The merged person's events: its own and the anonymous id's exposure.
        expect(new Set((onClickHouse.merged.flat() as { distinct_id: string }[]).map((e) => e.distinct_id))).toEqual(new Set(['user-0', 'anon-0']));
        expect((onClickHouse.result as { variants: unknown[] }).variants.length).toBe(2);

        // Re-run from the start, as after a crash that lost every insert's effect on the position,
        // and once more after losing the sink's uuid lookup rows (a crash between its two inserts).
        await using(connect(), async (client2) => {
          const rerun = async () => {
            const store = { ...clickhouseFoldedAnalytics(connect()), foldedPosition: async () => 0 };
            const fold = new AnalyticsFold({ log: s.runtime.log, store, readModels: s.runtime.readModels.readmodels.session, ingested: (p) => s.runtime.runner.waitFor(p, [INGESTION]) });
            await fold.start();
            await fold.waitFor(await s.runtime.log.head());
            await fold.stop();
            await store.close();
          };
          await rerun();
          const count = async (final = '') => Number((await client2.rows<{ n: string }>(`SELECT count() AS n FROM events ${final}`))[0].n);
          expect(await count()).toBe(listed);
          await client2.command('TRUNCATE TABLE event_uuids');
          // Background merges would collapse the identical second copies at any moment (seen in CI):
          // held while they are counted.
          await client2.command('SYSTEM STOP MERGES events');
          try {
            await rerun();
            expect(await count()).toBe(2 * listed);
            // Reads say FINAL: each event once.
            expect(await count('FINAL')).toBe(listed);
          } finally {
            await client2.command('SYSTEM START MERGES events');
          }
        });
        expect(await answers(s, experimentId)).toEqual(onClickHouse);
      } finally {
        await s.close();
      }

      // A restart resumes from the position the rows show, and answers the same.
      s = await startTestServer({ dataDir, env });
      try {
        const resumed = await using(connect(), (c) => clickhouseFoldedAnalytics(c).foldedPosition());
        expect(resumed).toBeGreaterThan(0);
        expect(resumed).toBeLessThanOrEqual(await s.runtime.log.head());
        await waitForClickHouse(s);
        expect(await answers(s, experimentId)).toEqual(onClickHouse);
      } finally {
        await s.close();
      }

      // The same data directory on the default store.
      s = await startTestServer({ dataDir });
      try {
        expect(s.runtime.analyticsFold).toBeNull();
        await settle(s);
        expect(await answers(s, experimentId)).toEqual(onClickHouse);
        // The same export files, byte for byte, read from the read models' events table.
        const onSqlite = [await exportedFiles(s, 'on-sqlite', exportWindow), await exportedFiles(s, 'hogql-on-sqlite', exportWindow, EXPORT_QUERY)];
        expect(onSqlite).toEqual(filesOnClickHouse);
      } finally {
        await s.close();
      }

      // `verify` digests the ClickHouse tables (order-independent) against the read models they are
      // folded from (the CLI once, for its wiring); `replay` rebuilds them from the log in a fresh
      // database (dropped after), with the live digest. Then an event ClickHouse holds and the read
      // models do not is a difference.
      const run = cli(dataDir, ['verify', '--json'], undefined, env);
      expect(run.code, run.stderr).toBe(0);
      const analyticsRow = (rows: { projection: string }[]) => rows.find((r) => r.projection === 'analytics');
      expect(analyticsRow((JSON.parse(run.stdout) as { rows: { projection: string }[] }).rows)).toMatchObject({ equal: true, atHead: true });
      const live = await using(connect(), (c) => clickhouseFoldedAnalytics(c).digest());
      const { digests } = await rebuild(dataDir, { analytics: engine.choice(dataDir, database) });
      expect(analyticsRow(digests)).toMatchObject({ digest: `events ${live.events} persons ${live.persons}` });
      const replays = await using(connect(null), (admin) => admin.rows<{ name: string }>(`SELECT name FROM system.databases WHERE name LIKE '${database}_replay_%'`));
      expect(replays).toEqual([]);
      await using(connect(), (c) =>
        c.insert('events', [
          { project_id: 1, uuid: 'not-in-the-log', event: 'x', distinct_id: 'd', person_id: null, timestamp: 0, received_at: 0, properties: '{}', elements_chain: '', historical_migration: 0, _position: 1 },
        ]),
      );
      s = await startTestServer({ dataDir, env });
      try {
        const checked = await verify(s.runtime, dataDir);
        expect(checked.ok).toBe(false);
        expect(analyticsRow(checked.rows)).toMatchObject({ equal: false });
      } finally {
        await s.close();
      }
    });
  });
}
