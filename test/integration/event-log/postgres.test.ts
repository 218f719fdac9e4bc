import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresEventLog } from '../../../src/adapters/postgres/event-log';
import { logNames } from '../../../src/adapters/postgres/event-log/schema';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { eventLogContract } from './contract';

const USER = await reachablePgUser();

describe('PostgreSQL availability', () => {
  // Locally a missing server skips the suite; in CI it must fail, never skip silently.
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
  });
});

if (USER !== null) {
  const schemas = pgSchemas(USER, 'evlog_test');
  afterAll(() => schemas.dropAll());
  const open = (schema: string, maxConnections?: number) =>
    PostgresEventLog.open({ connection: schemas.connection, schema, pollIntervalMs: 50, maxConnections });

  eventLogContract('PostgreSQL', async (options) => {
    const schema = schemas.fresh();
    return { log: await PostgresEventLog.open({ connection: schemas.connection, schema, pollIntervalMs: 50, ...options }), reopen: () => open(schema) };
  });

  describe('PostgreSQL event log under concurrent writers', () => {
    it('never lets a reader skip an event: 8 writers × 200 appends (1 or 3 events), followed by readAll and subscribe', async () => {
      const schema = schemas.fresh();
      const WRITERS = 8;
      const APPENDS = 200;
      const total = WRITERS * (APPENDS + 2 * (APPENDS / 5));
      // Each writer is its own handle with one connection: separate sessions, as separate processes.
      const writers = await Promise.all(Array.from({ length: WRITERS }, () => open(schema, 1)));
      const reader = await open(schema, 1);
      const follower = await open(schema, 1);
      await follower.listening();
      const ctx = { actor: { type: 'system' as const } };

      // The follower subscribes from the start, the reader polls readAll from its last position as
      // fast as it can: both race the writers' commits.
      const subscribed: { position: number; key: string }[] = [];
      // Known once the writers are done: the subscriber stops at the last acknowledged position, so
      // a design that skips events fails on the comparison below, not on a timeout.
      let lastPosition = Infinity;
      let caughtUp = () => undefined as void;
      const subscription = new Promise<void>((resolve, reject) => {
        const sub = follower.subscribe({ batchSize: 50 }).subscribe({
          next: (e) => {
            subscribed.push({ position: e.position, key: `${e.streamId}/${e.revision}` });
            caughtUp();
          },
          error: reject,
        });
        caughtUp = () => {
          if ((subscribed.at(-1)?.position ?? 0) >= lastPosition) {
            sub.unsubscribe();
            resolve();
          }
        };
      });
      let writing = true;
      const polled: { position: number; key: string }[] = [];
      const polling = (async () => {
        let last = 0;
        for (;;) {
          // Whether the writers were done before this read began: an empty read that started while
          // the last append was still committing proves nothing, so only a later one ends the loop.
          const writersDone = !writing;
          const batch = await reader.readAll({ afterPosition: last, maxCount: 37 });
          for (const e of batch) polled.push({ position: e.position, key: `${e.streamId}/${e.revision}` });
          if (batch.length) last = batch[batch.length - 1].position;
          if (writersDone && batch.length === 0) break;
        }
      })();

      const appended = new Map<string, number>();
      await Promise.all(
        writers.map(async (log, w) => {
          for (let i = 0; i < APPENDS; i++) {
            // Half the appends share one stream with 'any', so writers also contend per stream;
            // every fifth carries three events (this adapter gives one append consecutive positions).
            const stream = i % 2 ? `shared` : `writer-${w}`;
            const size = i % 5 === 0 ? 3 : 1;
            const events = Array.from({ length: size }, (_, k) => ({ type: 'Tested', data: { w, i, k } }));
            const r = await log.append(stream, events, { expectedRevision: 'any', context: ctx });
            expect(r.lastPosition - r.firstPosition).toBe(size - 1);
            for (let k = 0; k < size; k++) appended.set(`${stream}/${r.nextExpectedRevision - size + 1 + k}`, r.firstPosition + k);
          }
        }),
      );
      writing = false;
      lastPosition = Math.max(...appended.values());
      caughtUp();
      await Promise.all([polling, subscription]);

      expect(appended.size).toBe(total);
      for (const seen of [polled, subscribed]) {
        expect(seen).toHaveLength(total);
        // Strictly increasing: no repeat, no reordering.
        for (let k = 1; k < seen.length; k++) expect(seen[k].position).toBeGreaterThan(seen[k - 1].position);
        // Every acknowledged append, at the position its writer was told: nothing skipped.
        expect(new Map(seen.map((s) => [s.key, s.position]))).toEqual(appended);
      }
      expect(await reader.head()).toBe(Math.max(...appended.values()));
      await Promise.all([...writers, reader, follower].map((l) => l.close()));
    }, 60_000);

    it('lets exactly one of many writers on separate connections win each expected revision', async () => {
      const schema = schemas.fresh();
      const logs = await Promise.all(Array.from({ length: 6 }, () => open(schema, 1)));
      const ctx = { actor: { type: 'system' as const } };
      for (let revision = -1; revision < 9; revision++) {
        const expectedRevision = revision < 0 ? ('no_stream' as const) : revision;
        const results = await Promise.allSettled(
          logs.map((log, n) => log.append('contended', [{ type: 'Tested', data: { n } }], { expectedRevision, context: ctx })),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      }
      expect((await logs[0].readStream('contended')).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      await Promise.all(logs.map((l) => l.close()));
    });

    it('wakes live subscriptions by NOTIFY, and listens again after its connection is killed', async () => {
      const schema = schemas.fresh();
      const application_name = `evlog-listen-${schema}`;
      // A one-minute poll: within this test only a notification can deliver an event.
      const log = await PostgresEventLog.open({ connection: { ...schemas.connection, application_name }, schema, pollIntervalMs: 60_000 });
      const writer = await open(schema);
      const ctx = { context: { actor: { type: 'system' as const } } };
      const seen: number[] = [];
      let arrived = () => undefined as void;
      const sub = log.subscribe({}).subscribe((e) => {
        seen.push((e.data as { n: number }).n);
        arrived();
      });
      const next = (n: number) => new Promise<void>((resolve) => (arrived = () => seen.includes(n) && resolve()));
      await log.listening();
      let got = next(1);
      await writer.append('s', [{ type: 'Tested', data: { n: 1 } }], ctx);
      await got;

      const admin = new pg.Client(schemas.connection);
      await admin.connect();
      const killed = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
        [application_name],
      );
      expect(killed.rowCount).toBe(1);
      await admin.end();
      // Appended while nobody listens: the reconnect (about a second later) reads it.
      got = next(2);
      await writer.append('s', [{ type: 'Tested', data: { n: 2 } }], ctx);
      await got;
      got = next(3);
      await writer.append('s', [{ type: 'Tested', data: { n: 3 } }], ctx);
      await got;
      expect(seen).toEqual([1, 2, 3]);
      sub.unsubscribe();
      await Promise.all([log.close(), writer.close()]);
    });

    it('is not wedged by a dead session holding the append lock, and readers never wait for it', async () => {
      const schema = schemas.fresh();
      const log = await open(schema);
      const ctx = { context: { actor: { type: 'system' as const } } };
      await log.append('s', [{ type: 'Tested', data: { n: 1 } }], ctx);
      const stuck = new pg.Client(schemas.connection);
      await stuck.connect();
      stuck.on('error', () => undefined);
      await stuck.query('BEGIN');
      await stuck.query(`SELECT pg_advisory_xact_lock(${logNames(schema).lockKey})`);
      const blocked = log.append('s', [{ type: 'Tested', data: { n: 2 } }], ctx);
      let done = false;
      void blocked.then(() => (done = true));
      // Readers take no lock: an open transaction elsewhere does not stall them.
      expect((await log.readAll()).map((e) => (e.data as { n: number }).n)).toEqual([1]);
      expect(await log.head()).toBe(1);
      expect(done).toBe(false);
      const admin = new pg.Client(schemas.connection);
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [(stuck as unknown as { processID: number }).processID]);
      await admin.end();
      await expect(blocked).resolves.toMatchObject({ nextExpectedRevision: 1 });
      expect((await log.readAll()).map((e) => (e.data as { n: number }).n)).toEqual([1, 2]);
      await stuck.end().catch(() => undefined);
      await log.close();
    });

    it('closes cleanly: live subscriptions complete and no connection is left', async () => {
      const schema = schemas.fresh();
      const application_name = `evlog-close-${schema}`;
      const log = await PostgresEventLog.open({ connection: { ...schemas.connection, application_name }, schema });
      const admin = new pg.Client(schemas.connection);
      await admin.connect();
      const sessions = async () =>
        (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [application_name])).rows[0].n;
      const completed = new Promise<void>((resolve) => log.subscribe({}).subscribe({ complete: resolve }));
      await log.listening();
      await log.append('s', [{ type: 'Tested', data: {} }], { context: { actor: { type: 'system' } } });
      expect(await sessions()).toBeGreaterThanOrEqual(2); // the pool and the LISTEN connection
      await log.close();
      await completed;
      // A backend leaves pg_stat_activity a moment after its client hangs up.
      for (let i = 0; i < 50 && (await sessions()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await sessions()).toBe(0);
      await admin.end();
    });
  });
}
