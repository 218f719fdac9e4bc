import { afterAll, describe, expect, it } from 'vitest';
import type { ReadModelProjection } from '../../../src/store/read-model-projection';
import { PostgresEventLog } from '../../../src/adapters/postgres/event-log';
import { PostgresReadModelStore } from '../../../src/adapters/postgres/read-models';
import { digestProjection } from '../../../src/runtime/digest';
import { FollowingRunner } from '../../../src/runtime/following-runner';
import { ChangeRecorder, FOLLOWER_CUT_OFF_MS } from '../../../src/runtime/change-log';
import { ProjectionRunner } from '../../../src/runtime/projection-runner';
import type { AppliedBatch } from '../../../src/store/runner';
import { hintedAppendNotifications } from '../../../src/store/append-notifications';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';

const USER = await reachablePgUser();

describe('PostgreSQL availability', () => {
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
  });
});

/** Sums per stream: a read-modify-write fold, so a batch applied twice or skipped shows. */
const totals: ReadModelProjection = {
  name: 'totals',
  version: 1,
  store: 'readmodels',
  tables: [{ name: 'totals', columns: { stream: 'text', total: 'integer', events: 'integer' }, primaryKey: ['stream'], orderBy: 'stream' }],
  async apply(event, db) {
    const n = (event.data as { n: number }).n;
    const row = await db.get<{ total: number; events: number }>('SELECT total, events FROM totals WHERE stream = ?', event.streamId);
    if (row) await db.run('UPDATE totals SET total = ?, events = ? WHERE stream = ?', row.total + n, row.events + 1, event.streamId);
    else await db.run('INSERT INTO totals (stream, total, events) VALUES (?, ?, 1)', event.streamId, n);
  },
};

const ctx = { context: { actor: { type: 'system' as const } } };

if (USER !== null) {
  const schemas = pgSchemas(USER, 'rm_runner');
  afterAll(() => schemas.dropAll());

  describe('the projection runner on a PostgreSQL log and PostgreSQL read models', () => {
    it("is woken by another process's append (NOTIFY), not its poll, and two runners on one store fold each event once", async () => {
      const logSchema = schemas.fresh();
      const modelSchema = schemas.fresh();
      const openLog = () => PostgresEventLog.open({ connection: schemas.connection, schema: logSchema, pollIntervalMs: 60_000 });
      const openStore = () => PostgresReadModelStore.open({ connection: schemas.connection, schema: modelSchema });
      const [writer, logA, logB, storeA, storeB] = await Promise.all([openLog(), openLog(), openLog(), openStore(), openStore()]);
      const notices = hintedAppendNotifications;
      // Polls far apart: only notices can wake them in time.
      const a = new ProjectionRunner(logA, { readmodels: storeA }, [totals], { notifications: notices(logA), pollIntervalMs: 60_000, batchSize: 7 });
      const b = new ProjectionRunner(logB, { readmodels: storeB }, [totals], { notifications: notices(logB), pollIntervalMs: 60_000, batchSize: 5 });
      await Promise.all([a.ready, b.ready]);
      a.start();
      b.start();
      await Promise.all([logA.listening(), logB.listening()]);

      let last = 0;
      let expected = 0;
      for (let i = 1; i <= 60; i++) {
        last = (await writer.append(`s-${i % 3}`, [{ type: 'Added', data: { n: i } }], ctx)).lastPosition;
        expected += i;
      }
      const started = Date.now();
      // Either runner may have folded any batch: the store's checkpoint is what both wait on.
      await Promise.race([a.waitFor(last), b.waitFor(last)]);
      expect(Date.now() - started).toBeLessThan(5000);
      await new Promise((r) => setTimeout(r, 300));
      const rows = await storeA.session.all<{ stream: string; total: number; events: number }>('SELECT * FROM totals ORDER BY stream');
      expect(rows.reduce((n, r) => n + r.total, 0)).toBe(expected);
      expect(rows.reduce((n, r) => n + r.events, 0)).toBe(60);
      expect(await digestProjection(storeA.session, totals)).toBe(await digestProjection(storeB.session, totals));
      a.stop();
      b.stop();
      await Promise.all([writer.close(), logA.close(), logB.close(), storeA.close(), storeB.close()]);
    });
  });

  describe('a process that folds nothing follows the shared store', () => {
    /**
     * A folding runner and, on connections of its own, a started follower whose applied batches are
     * collected, on fresh log and read-model schemas. `notices`: whether append notices reach it.
     */
    async function foldingAndFollowing(follow: { notices: boolean; pollIntervalMs: number; now?: () => number }) {
      const logSchema = schemas.fresh();
      const modelSchema = schemas.fresh();
      const openLog = () => PostgresEventLog.open({ connection: schemas.connection, schema: logSchema, pollIntervalMs: 60_000 });
      const openStore = () => PostgresReadModelStore.open({ connection: schemas.connection, schema: modelSchema });
      const [apiLog, foldLog, apiStore, foldStore] = await Promise.all([openLog(), openLog(), openStore(), openStore()]);
      const folding = new ProjectionRunner(foldLog, { readmodels: foldStore }, [totals], { notifications: hintedAppendNotifications(foldLog), changes: new ChangeRecorder() });
      await folding.ready;
      folding.start();
      const following = new FollowingRunner(apiLog, { readmodels: apiStore }, [totals], {
        notifications: follow.notices ? hintedAppendNotifications(apiLog) : undefined,
        pollIntervalMs: follow.pollIntervalMs,
        now: follow.now,
      });
      await following.ready;
      const applied: AppliedBatch[] = [];
      following.applied$.subscribe((b) => applied.push(b));
      following.start();
      const close = async () => {
        following.stop();
        folding.stop();
        await Promise.all([apiLog.close(), foldLog.close(), apiStore.close(), foldStore.close()]);
      };
      return { apiLog, foldLog, apiStore, folding, following, applied, close };
    }

    it('answers read-your-writes from the shared checkpoints and tells its caches what the folding process applied', async () => {
      const { apiLog, apiStore, following, applied, close } = await foldingAndFollowing({ notices: true, pollIntervalMs: 60_000 });
      // The API process appends, then answers once the shared read models include the write.
      const { lastPosition } = await apiLog.append('s-1', [{ type: 'Added', data: { n: 5 } }], { context: { actor: { type: 'system' }, projectId: 42 } });
      await following.waitFor(lastPosition, ['totals']);
      expect(await apiStore.session.get('SELECT total FROM totals WHERE stream = ?', 's-1')).toEqual({ total: 5 });
      expect(following.checkpoints()).toEqual({ totals: lastPosition });
      await new Promise((r) => setTimeout(r, 100));
      expect(applied).toEqual([{ projection: 'totals', events: [expect.objectContaining({ type: 'Added', metadata: { projectId: 42 } })] }]);
      await close();
    });

    it('after a cut-off longer than change rows are surely kept, says that what moved is unknown instead of reading them', async () => {
      let clock = 0;
      const { apiLog, folding, following, applied, close } = await foldingAndFollowing({ notices: true, pollIntervalMs: 60_000, now: () => clock });
      const add = async (stream: string) => (await apiLog.append(stream, [{ type: 'Added', data: { n: 1 } }], { context: { actor: { type: 'system' }, projectId: 7 } })).lastPosition;
      /** The folding process commits `stream`'s event while this one reads nothing for `ms`. */
      const whileCutOff = async (ms: number, stream: string) => {
        following.stop();
        const position = await add(stream);
        await folding.waitFor(position);
        clock += ms;
        following.start();
        await following.waitFor(position, ['totals']);
      };
      await following.waitFor(await add('s-1'), ['totals']);
      await whileCutOff(FOLLOWER_CUT_OFF_MS - 1, 's-2'); // the change rows are surely there: read
      await whileCutOff(FOLLOWER_CUT_OFF_MS + 1, 's-3');
      await following.waitFor(await add('s-4'), ['totals']); // back in step: rows again
      await new Promise((r) => setTimeout(r, 100));
      const seen = applied.map((b) => (b.unknown ? 'unknown' : b.events.map((e) => e.streamId).join(',')));
      expect(seen).toEqual(['s-1', 's-2', 'unknown', 's-4']);
      await close();
    });

    it('polls the shared checkpoints once started, also without append notices', async () => {
      const { foldLog, folding, applied, close } = await foldingAndFollowing({ notices: false, pollIntervalMs: 50 });
      const { lastPosition } = await foldLog.append('s-9', [{ type: 'Added', data: { n: 1 } }], { context: { actor: { type: 'system' }, projectId: 3 } });
      await folding.waitFor(lastPosition);
      // Nothing waits on the follower and no notice reaches it: only its poll can find the batch.
      const deadline = Date.now() + 5000;
      while (!applied.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(applied.map((b) => b.events.map((e) => e.streamId))).toEqual([['s-9']]);
      await close();
    });
  });
}
