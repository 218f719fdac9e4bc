import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestionProjection } from '../../../projections/ingestion';
import type { ReadModelProjection } from '../../../src/store/read-model-projection';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { PostgresReadModelStore } from '../../../src/adapters/postgres/read-models';
import { digestProjection } from '../../../src/runtime/digest';
import { ProjectionRunner } from '../../../src/runtime/projection-runner';
import { inProcessAppendNotifications } from '../../../src/store/append-notifications';
import type { ReadModelStore } from '../../../src/store/read-models';
import { reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { tempDir } from '../../support/temp-dir';
import { asBatches, mixedLog } from '../../unit/ingestion-projection/mixed-log';

/** Per stream, how many events and their sum: a second, simple projection upgraded together. */
const totals: ReadModelProjection = {
  name: 'totals',
  version: 1,
  store: 'readmodels',
  handles: ['EventsCaptured'],
  tables: [{ name: 'totals', columns: { stream: 'text', events: 'integer' }, primaryKey: ['stream'], orderBy: 'stream', indexes: { totals_by_events: ['events'] } }],
  async apply(event, db) {
    const n = (event.data as { events: unknown[] }).events.length;
    await db.run('INSERT INTO totals (stream, events) VALUES (?, ?) ON CONFLICT (stream) DO UPDATE SET events = totals.events + excluded.events', event.streamId, n);
  },
};
/** The next version of a projection: the same fold (its rows come out alike), another number. */
const upgraded = (p: ReadModelProjection): ReadModelProjection => ({ ...p, version: p.version + 1 });

const USER = await reachablePgUser();
const schemas = USER === null ? null : pgSchemas(USER, 'side_by_side');
afterAll(() => schemas?.dropAll());

type Stores = () => Promise<ReadModelStore>;
const engines: [string, () => Stores][] = [
  [
    'SQLite',
    () => {
      const file = join(tempDir('sbs-models-'), 'rm.sqlite');
      return async () => new SqliteReadModelStore(openSqlite(file));
    },
  ],
];
if (schemas) {
  engines.push([
    'PostgreSQL',
    () => {
      const schema = schemas.fresh();
      return () => PostgresReadModelStore.open({ connection: schemas.connection, schema });
    },
  ]);
}

/** A log of mixed ingestion (persons, merges, groups, warnings) in EventsCaptured records. */
function filledLog(size: number) {
  const log = new SqliteEventLog(join(tempDir('sbs-log-'), 'log.sqlite'));
  const add = (events: ReturnType<typeof mixedLog>) => {
    for (const e of asBatches(events)) log.appendSync(e.streamId, [{ type: e.type, data: e.data }], { context: { projectId: e.metadata.projectId, actor: { type: 'system' } } });
  };
  add(mixedLog(size));
  return { log, add };
}

const digests = async (store: ReadModelStore, projections: readonly ReadModelProjection[]) =>
  Object.fromEntries(await Promise.all(projections.map(async (p) => [p.name, await digestProjection(store.session, p)] as const)));

async function until(condition: () => boolean, what: string) {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > 60_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.each(engines)('side-by-side rebuilds on %s read models', (_engine, makeStores) => {
  it('serve the old tables unchanged while the new version is built, then switch at the head, as a fresh fold would have it', async () => {
    const { log, add } = filledLog(1500);
    const open = makeStores();
    const store = await open();
    const v1 = [ingestionProjection, totals];
    const first = new ProjectionRunner(log, { readmodels: store }, v1, { sideBySide: false });
    await first.catchUp();
    const before = await digests(store, v1);
    const oldCheckpoint = first.checkpoints().ingestion;

    const v2 = v1.map(upgraded);
    const runner = new ProjectionRunner(log, { readmodels: store }, v2, { notifications: inProcessAppendNotifications(log), batchSize: 50 });
    await runner.ready;
    // Nothing applied to the old tables: they serve as they were, from their checkpoint.
    expect(runner.rebuilds()).toEqual({ ingestion: { version: ingestionProjection.version + 1, position: 0 }, totals: { version: 2, position: 0 } });
    expect(runner.checkpoints()).toEqual({ ingestion: oldCheckpoint, totals: oldCheckpoint });
    await runner.catchUp({ rebuilds: 'background' });
    expect(await digests(store, v1)).toEqual(before);

    let tookOver = 0;
    runner.applied$.subscribe((batch) => batch.unknown && tookOver++);
    runner.start();
    add(mixedLog(300)); // written while the rebuild runs
    await until(() => Object.keys(runner.rebuilds()).length === 0, 'the rebuilds to take over');
    await runner.waitFor(await log.head());
    runner.stop();
    expect(tookOver).toBe(2);
    expect(runner.failures()).toEqual({});

    // The same rows as a fresh fold of the whole log by the new version, under the old names.
    const fresh = await makeStores()();
    const reference = new ProjectionRunner(log, { readmodels: fresh }, v2);
    await reference.catchUp();
    expect(await digests(store, v2)).toEqual(await digests(fresh, v2));
    const versions = await store.session.all<{ name: string; version: number }>('SELECT name, version FROM projection_checkpoints ORDER BY name');
    expect(versions).toEqual([
      { name: 'ingestion', version: ingestionProjection.version + 1 },
      { name: 'totals', version: 2 },
    ]);
    // The side-by-side tables are gone, and the indexes carry the names queries give.
    for (const table of [...ingestionProjection.tables, ...totals.tables]) expect(await store.hasTable(`${table.name}__v${ingestionProjection.version + 1}`) || (await store.hasTable(`${table.name}__v2`))).toBe(false);
    if (store.dialect.name === 'sqlite') {
      const indexes = await store.session.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%' AND name LIKE '%\\_\\_v%' ESCAPE '\\'`);
      expect(indexes).toEqual([]);
    }
    // The next start binds the new version as current: nothing is rebuilt again.
    const again = new ProjectionRunner(log, { readmodels: store }, v2);
    await again.ready;
    expect(again.rebuilds()).toEqual({});
    await Promise.all([store.close(), fresh.close(), log.close()]);
  }, 120_000);

  it('go on folding new events into the serving tables with the previous version, when the projection keeps it', async () => {
    const { log, add } = filledLog(300);
    const store = await makeStores()();
    await new ProjectionRunner(log, { readmodels: store }, [totals], { sideBySide: false }).catchUp();
    const v2: ReadModelProjection = { ...totals, version: 2, previous: totals };
    const runner = new ProjectionRunner(log, { readmodels: store }, [v2]);
    await runner.ready;
    add(mixedLog(200)); // written after the upgrade started
    const head = await log.head();
    // Only the serving version is caught up here: the new one is not built yet.
    await runner.catchUp({ rebuilds: 'background' });
    expect(runner.rebuilds()).toEqual({ totals: { version: 2, position: 0 } });
    expect(runner.checkpoints().totals).toBe(head);
    await runner.waitFor(head, ['totals']);
    const served = await digests(store, [totals]);
    const fresh = await makeStores()();
    await new ProjectionRunner(log, { readmodels: fresh }, [totals]).catchUp();
    expect(served).toEqual(await digests(fresh, [totals]));
    // Then the new version is built and takes over.
    await runner.catchUp();
    expect(runner.rebuilds()).toEqual({});
    expect((await store.session.get<{ version: number }>('SELECT version FROM projection_checkpoints WHERE name = ?', 'totals'))?.version).toBe(2);
    expect(await digests(store, [v2])).toEqual(await digests(fresh, [totals]));
    await Promise.all([store.close(), fresh.close(), log.close()]);
  }, 120_000);

  it('resumes an interrupted rebuild where it stopped', async () => {
    const { log } = filledLog(1500);
    const open = makeStores();
    const store = await open();
    const v1 = [ingestionProjection];
    await new ProjectionRunner(log, { readmodels: store }, v1, { sideBySide: false }).catchUp();
    const v2 = v1.map(upgraded);
    const interrupted = new ProjectionRunner(log, { readmodels: store }, v2, { notifications: inProcessAppendNotifications(log), batchSize: 20 });
    await interrupted.ready;
    interrupted.start();
    await until(() => (interrupted.rebuilds().ingestion?.position ?? 0) > 0, 'the rebuild to start');
    interrupted.stop();
    const reached = interrupted.rebuilds().ingestion.position;
    expect(reached).toBeLessThan(await log.head());

    const resumed = new ProjectionRunner(log, { readmodels: store }, v2, { batchSize: 20 });
    await resumed.ready;
    expect(resumed.rebuilds().ingestion.position).toBeGreaterThanOrEqual(reached);
    await resumed.catchUp();
    expect(resumed.rebuilds()).toEqual({});
    const fresh = await makeStores()();
    await new ProjectionRunner(log, { readmodels: fresh }, v2).catchUp();
    expect(await digests(store, v2)).toEqual(await digests(fresh, v2));
    await Promise.all([store.close(), fresh.close(), log.close()]);
  }, 120_000);
});
