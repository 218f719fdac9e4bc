import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  batchExportLogQueries,
  batchExportLogsProjection,
  batchExportQueries,
  batchExportRunQueries,
  batchExportRunsProjection,
  batchExportsProjection,
} from '../../../projections/exports';
import type { SqlSession } from '../../../src/store/sql';
import { PostgresReadModelStore } from '../../../src/adapters/postgres/read-models';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { storeFiles } from '../../../src/app';
import { digestProjection } from '../../../src/runtime';
import { ProjectionRunner } from '../../../src/runtime/projection-runner';
import type { ReadModelStore } from '../../../src/store/read-models';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { tempDir } from '../../support/temp-dir';
import { startExportServer } from '../exports/harness';

const USER = await reachablePgUser();
const PROJECTIONS = [batchExportsProjection, batchExportRunsProjection, batchExportLogsProjection];

describe('PostgreSQL availability', () => {
  // Locally a missing server skips the suite; in CI it must fail, never skip silently.
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
  });
});

const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
const patch = (body: unknown) => ({ method: 'PATCH', body: JSON.stringify(body) });

interface Scenario {
  dataDir: string;
  projectId: number;
  exportIds: string[];
  /** Ids nothing has: answers must agree on absence too. */
  missing: string;
}

/**
 * A realistic history of the batch exports context, made through the real service over HTTP with a
 * driven clock: exports of several kinds (one created paused, one failing until it is paused
 * automatically, one deleted), ticks that schedule, run, retry and fail runs, pauses and unpauses
 * (with and without backfill), renames, cancelled and retried runs, and backfills (one still pending).
 */
async function produceHistory(): Promise<Scenario> {
  const s = await startExportServer({ start: '2024-03-04T10:00:30Z', worker: { maxAttempts: 2, autoPauseWindow: 5, autoPauseFailures: 2 } });
  const base = `/api/projects/${s.projectId}/batch_exports`;
  const create = async (body: Record<string, unknown>) => (await s.call(`${base}/`, post(body))).id as string;
  /** Only schedules (the runs stay queued), then waits until the read models hold the new runs. */
  const schedule = async () => {
    await s.scheduler.tick();
    await s.runtime.runner.waitFor(await s.runtime.log.head());
  };
  try {
    const a = await create({ name: 'hourly files', destination: { type: 'NoOp', config: {} }, interval: 'hour' });
    const b = await create({ name: 'webhook_100%', destination: { type: 'HTTP', config: { url: 'http://127.0.0.1:9/batch_100%25/', token: 'phc_x' } }, interval: 'hour' });
    const c = await create({ name: 'Five Minutes', destination: { type: 'NoOp', config: {} }, interval: 'every 5 minutes', paused: true });
    const d = await create({ name: 'daily, soon deleted', destination: { type: 'NoOp', config: {} }, interval: 'day', start_at: '2024-03-01T00:00:00Z' });
    const e = await create({
      name: 'with query',
      destination: { type: 'NoOp', config: {} },
      interval: 'hour',
      hogql_query: 'SELECT event, distinct_id FROM events',
      end_at: '2024-03-04T20:00:00Z',
    });
    // Events in three hours: an HTTP run fails only when it has something to send.
    const capture = async (at: string) => {
      s.clock.set(at);
      await s.capture([1, 2, 3].map((i) => ({ event: 'pageview', distinct_id: `user-${i}`, properties: { i, at } })));
    };
    for (const hour of ['10', '11', '12']) await capture(`2024-03-04T${hour}:10:00Z`);

    // Three hours: A and E complete runs, B's attempts fail and wait for a retry.
    s.clock.set('2024-03-04T13:00:30Z');
    await s.tick();
    // The retries fail for good: two failed runs pause B automatically.
    s.clock.advance(10_000);
    await s.tick();

    await s.call(`${base}/${a}/`, patch({ name: 'Hourly Files (renamed)' }));
    await s.call(`${base}/${a}/pause/`, post({}));
    s.clock.set('2024-03-04T15:00:30Z');
    await s.call(`${base}/${a}/unpause/`, post({ backfill: true }));
    await s.call(`${base}/${c}/unpause/`, post({}));
    await s.call(`${base}/${e}/`, patch({ interval: 'every 15 minutes' }));
    await s.tick();

    // One run cancelled while queued, a completed one retried.
    s.clock.set('2024-03-04T16:00:30Z');
    await schedule();
    const queued = (await s.call(`${base}/${a}/runs/?limit=1`)).results[0];
    await s.call(`${base}/${a}/runs/${queued.id}/cancel/`, post({}));
    const done = (await s.call(`${base}/${a}/runs/?limit=3`)).results[2];
    await s.call(`${base}/${a}/runs/${done.id}/retry/`, post({}));
    await s.call(`${base}/${d}/`, { method: 'DELETE', status: 204 });
    await s.call(`${base}/${a}/backfill/`, post({ start_at: '2024-03-03T00:00:00Z', end_at: '2024-03-03T05:00:00Z' }));
    await s.worker.drain();
    await s.tick();

    // B again: unpaused, its next run fails once and waits for a retry; a run is left queued and a
    // backfill unscheduled.
    await s.call(`${base}/${b}/unpause/`, post({}));
    await capture('2024-03-04T16:10:00Z');
    s.clock.set('2024-03-04T17:00:30Z');
    await s.tick();
    s.clock.set('2024-03-04T17:05:30Z');
    await schedule();
    await s.call(`${base}/${e}/backfill/`, post({ start_at: '2024-03-02T00:00:00Z', end_at: '2024-03-02T02:00:00Z' }));
    return { dataDir: s.dataDir, projectId: s.projectId, exportIds: [a, b, c, d, e], missing: '00000000-0000-4000-8000-000000000000' };
  } finally {
    await s.close();
  }
}

async function fold(store: ReadModelStore, dataDir: string): Promise<void> {
  const log = new SqliteEventLog(storeFiles(dataDir).log);
  try {
    const runner = new ProjectionRunner(log, { readmodels: store }, PROJECTIONS, { batchSize: 50 });
    await runner.catchUp();
    expect(runner.failures()).toEqual({});
    expect(runner.quarantines().count).toBe(0);
  } finally {
    await log.close();
  }
}

/** Every query of the context, with arguments that reach each branch, answered by one store. */
async function answers(db: SqlSession, sc: Scenario): Promise<Record<string, unknown>> {
  const exports = batchExportQueries(db);
  const runs = batchExportRunQueries(db);
  const logs = batchExportLogQueries(db);
  const out: Record<string, unknown> = {};
  const ids = [...sc.exportIds, sc.missing];
  for (const id of ids) {
    out[`exports.byId ${id}`] = await exports.byId(id);
    out[`exports.pauses ${id}`] = await exports.pauses(id);
    out[`exports.lastScheduledEnd ${id}`] = await exports.lastScheduledEnd(id);
    out[`runs.latest ${id}`] = await runs.latest(id, 4);
    out[`runs.unfinished ${id}`] = await runs.unfinished(id);
    for (const window of [1, 3, 50]) out[`runs.failuresInLatest ${id} ${window}`] = await runs.failuresInLatest(id, window);
  }
  for (const projectIds of [[sc.projectId], [sc.projectId, 999], [999], []]) {
    for (const [limit, offset] of [[100, 0], [2, 0], [2, 2], [2, 10]]) {
      out[`exports.list ${projectIds} ${limit} ${offset}`] = await exports.list(projectIds, limit, offset);
    }
  }
  out['exports.live'] = await exports.live();
  out['exports.pendingBackfills'] = await exports.pendingBackfills();
  out['runs.nextRetryAt'] = await runs.nextRetryAt();
  for (const now of ['2024-03-04T10:00:00.000Z', '2024-03-04T17:00:30.000Z', '2024-03-05T00:00:00.000Z']) {
    out[`runs.claimable ${now}`] = await runs.claimable(now, 100);
    out[`runs.claimable ${now} 1`] = await runs.claimable(now, 1);
  }

  // Every run by id, reached by walking the keyset pages of each export both ways.
  for (const id of ids) {
    let page = await runs.page(id, 3, null);
    const pages = [page];
    while (page.hasOlder && page.rows.length) {
      page = await runs.page(id, 3, { seq: page.rows[page.rows.length - 1].seq, newer: false });
      pages.push(page);
    }
    while (page.hasNewer && page.rows.length) {
      page = await runs.page(id, 3, { seq: page.rows[0].seq, newer: true });
      pages.push(page);
    }
    out[`runs.page ${id}`] = pages;
    out[`runs.page ${id} empty`] = [await runs.page(id, 3, { seq: 0, newer: false }), await runs.page(id, 3, { seq: 1e12, newer: true })];
    for (const p of pages) for (const r of p.rows) out[`runs.byId ${r.id}`] = await runs.byId(r.id);
  }
  out[`runs.byId missing`] = await runs.byId(sc.missing);

  const searches = ['backfill', 'BACKFILL', 'noop', 'attempt 1', '%', '_', '\\', 'no such text'];
  for (const id of ids) {
    const all = await logs.list({ batchExportId: id, limit: 1000, offset: 0 });
    out[`logs.list ${id}`] = all;
    out[`logs.list ${id} page`] = await logs.list({ batchExportId: id, limit: 5, offset: 3 });
    out[`logs.list ${id} levels`] = await logs.list({ batchExportId: id, levels: ['WARNING', 'ERROR'], limit: 1000, offset: 0 });
    out[`logs.list ${id} debug`] = await logs.list({ batchExportId: id, levels: ['DEBUG'], limit: 1000, offset: 0 });
    for (const search of searches) out[`logs.list ${id} search ${search}`] = await logs.list({ batchExportId: id, search, limit: 1000, offset: 0 });
    const runId = all.rows.find((r) => r.run_id !== null)?.run_id;
    if (runId) out[`logs.list ${id} run`] = await logs.list({ batchExportId: id, runId, levels: ['INFO'], search: 'export', limit: 1000, offset: 0 });
  }
  return out;
}

if (USER !== null) {
  const schemas = pgSchemas(USER, 'rm_exports_test');
  let sc: Scenario;
  let sqlite: SqliteReadModelStore;
  let postgres: PostgresReadModelStore;

  beforeAll(async () => {
    sc = await produceHistory();
    sqlite = new SqliteReadModelStore(openSqlite(join(tempDir('rm-exports-'), 'readmodels.sqlite')));
    postgres = await PostgresReadModelStore.open({ connection: schemas.connection, schema: schemas.fresh() });
    await fold(sqlite, sc.dataDir);
    await fold(postgres, sc.dataDir);
  }, 120_000);
  afterAll(async () => {
    await sqlite?.close();
    await postgres?.close();
    await schemas.dropAll();
  });

  describe('batch exports read models on SQLite and PostgreSQL', () => {
    it('fold the same history into the same rows (digests), as the server itself did', async () => {
      const server = new SqliteReadModelStore(openSqlite(storeFiles(sc.dataDir).readmodels, { readonly: true }));
      try {
        for (const projection of PROJECTIONS) {
          const expected = await digestProjection(server.session, projection);
          expect(await digestProjection(sqlite.session, projection), projection.name).toBe(expected);
          expect(await digestProjection(postgres.session, projection), projection.name).toBe(expected);
        }
      } finally {
        await server.close();
      }
    });

    it('the history covers every state the queries tell apart', async () => {
      const runs = await sqlite.session.all<{ status: string }>('SELECT DISTINCT status FROM batch_export_runs ORDER BY status');
      expect(runs.map((r) => r.status)).toEqual(['Cancelled', 'Completed', 'Failed', 'FailedRetryable', 'Starting']);
      const pauses = await sqlite.session.all<{ automatic: number; backfill: number; open: number }>(
        'SELECT DISTINCT automatic, backfill, CASE WHEN unpaused_at IS NULL THEN 1 ELSE 0 END AS open FROM batch_export_pauses ORDER BY 1, 2, 3',
      );
      expect(pauses).toEqual([
        { automatic: 0, backfill: 0, open: 0 },
        { automatic: 0, backfill: 1, open: 0 },
        { automatic: 1, backfill: 0, open: 0 },
      ]);
      const exports = batchExportQueries(sqlite.session);
      expect((await exports.byId(sc.exportIds[3]))!.deleted).toBe(true);
      expect(await exports.pendingBackfills()).toHaveLength(1);
      expect(await batchExportRunQueries(sqlite.session).nextRetryAt()).not.toBeNull();
      const runs2 = batchExportRunQueries(sqlite.session);
      // Queued runs of two exports, one of them a retry now due.
      expect(new Set((await runs2.claimable('2024-03-05T00:00:00.000Z', 100)).map((r) => r.status))).toEqual(new Set(['Starting', 'FailedRetryable']));
      expect((await runs2.page(sc.exportIds[0], 3, null)).hasOlder).toBe(true);
      expect(await runs2.failuresInLatest(sc.exportIds[1], 50)).toBeGreaterThanOrEqual(2);
    });

    it('answer every query the same way', async () => {
      const [a, b] = [await answers(sqlite.session, sc), await answers(postgres.session, sc)];
      expect(Object.keys(b)).toEqual(Object.keys(a));
      for (const key of Object.keys(a)) expect(b[key], key).toEqual(a[key]);
    });

    it('search logs for a substring ignoring case, LIKE characters taken literally', async () => {
      for (const session of [sqlite.session, postgres.session]) {
        const logs = batchExportLogQueries(session);
        for (const id of sc.exportIds) {
          const all = (await logs.list({ batchExportId: id, limit: 1000, offset: 0 })).rows;
          for (const search of ['backfill', 'BACKFILL', 'Attempt 1', '%', '_', '\\', ':0']) {
            const found = await logs.list({ batchExportId: id, search, limit: 1000, offset: 0 });
            const expected = all.filter((r) => r.message.toLowerCase().includes(search.toLowerCase()));
            expect(found.rows, `${session.dialect.name} ${search}`).toEqual(expected);
            expect(found.count).toBe(expected.length);
          }
        }
      }
      // The searches did find something.
      const logs = batchExportLogQueries(sqlite.session);
      expect((await logs.list({ batchExportId: sc.exportIds[0], search: 'BACKFILL', limit: 10, offset: 0 })).count).toBeGreaterThan(0);
      for (const search of ['%', '_']) expect((await logs.list({ batchExportId: sc.exportIds[1], search, limit: 10, offset: 0 })).count, search).toBeGreaterThan(0);
    });
  });
}
