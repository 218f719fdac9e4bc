import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import type { SqlSession } from '../../../src/store/sql';
import { TableLockTimeout, type ReadModelStore, type ReadModelTransaction, type TransactionOptions } from '../../../src/store/read-models';
import { markStorageFault } from '../../../src/store/storage-fault';
import { SideBySideRebuild, type RebuildHost } from '../../../src/runtime/side-by-side/rebuild';
import { openFiles, recorder, until, type Noted } from './runner-harness';

/**
 * The side-by-side rebuild (side-by-side/rebuild.ts) on real files, with a host that records what
 * the rebuild asks of the serving runner (runner-versions.test.ts drives it through the runner).
 */

/** Version 2 writes n * 10: which version folded a row shows. */
const v2 = (extra: Parameters<typeof recorder>[0] = {}) =>
  recorder({
    version: 2,
    async apply(event: RecordedEvent, db: SqlSession) {
      await db.run('INSERT INTO seen (position, n) VALUES (?, ?)', event.position, (event.data as Noted).n * 10);
    },
    ...extra,
  });

/** Files whose log holds n events, all folded by version 1 of `recorder`. */
async function folded(n: number) {
  const f = openFiles();
  for (let i = 1; i <= n; i++) f.note({ n: i });
  await f.runner([recorder()]).catchUp();
  return f;
}

function hostOf(f: ReturnType<typeof openFiles>, over: Partial<RebuildHost> = {}) {
  const seen = { heads: 0, progressed: 0, inTurn: 0, stops: 0, tookOver: [] as SideBySideRebuild[] };
  const host: RebuildHost = {
    runnerFor(next) {
      const runner = f.runner([next], { sideBySide: false, pollIntervalMs: 5, batchSize: 1 });
      const stop = runner.stop.bind(runner);
      runner.stop = () => {
        seen.stops++;
        stop();
      };
      return runner;
    },
    head: () => {
      seen.heads++;
      return f.log.head();
    },
    following: () => true,
    inTurn: async (work) => {
      seen.inTurn++;
      await work();
    },
    progressed: () => seen.progressed++,
    tookOver: async (r) => {
      seen.tookOver.push(r);
    },
    ...over,
  };
  return { host, seen };
}

/**
 * The store as an engine whose readers can hold tables (PostgreSQL): the take-over's transaction
 * gives up the first `timeouts` times (or fails with `error`), and the replaced tables are left,
 * renamed aside, for the rebuild to drop.
 */
function lockingStore(store: ReadModelStore, timeouts: number, error?: Error) {
  const asked: TransactionOptions[] = [];
  const replaceTables = (tx: ReadModelTransaction): ReadModelTransaction['replaceTables'] => async (pairs) => {
    for (const { to } of pairs) await tx.run(`ALTER TABLE "${to.name}" RENAME TO "${to.name}__old"`);
    await tx.replaceTables(pairs);
    return pairs.map(({ to }) => `${to.name}__old`);
  };
  const locking: ReadModelStore = {
    dialect: store.dialect,
    session: store.session,
    hasTable: (name) => store.hasTable(name),
    close: () => store.close(),
    async transaction(fn, options) {
      if (options?.tableLockTimeoutMs === undefined) return store.transaction(fn, options);
      asked.push(options);
      if (error) throw error;
      if (asked.length <= timeouts) throw new TableLockTimeout();
      return store.transaction((tx) => fn({ ...tx, replaceTables: replaceTables(tx) }), options);
    },
  };
  return { store: locking, asked };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a side-by-side rebuild', () => {
  it('finishes to a position, then takes over in the serving runner’s turn', async () => {
    const f = await folded(3);
    const projection = v2();
    const { host, seen } = hostOf(f);
    const rebuild = await SideBySideRebuild.begin(projection, f.store, host);
    expect(rebuild.next.name).toBe('recorder__v2');
    expect(rebuild.progress()).toEqual({ version: 2, position: 0 });
    const progress: number[] = [];
    await rebuild.finish(2, (position) => progress.push(position));
    expect(progress).toEqual([1, 2]);
    expect(rebuild.progress()).toEqual({ version: 2, position: 2 });
    expect(seen.inTurn).toBe(1);
    expect(seen.tookOver).toEqual([rebuild]);
    expect(seen.stops).toBeGreaterThan(0);
    expect(projection.rolledBackCalls).toBe(1);
    expect(f.checkpointRow('recorder')).toEqual({ position: 2, version: 2 });
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 10 }, { n: 20 }]);
    // Once: asking again answers the take-over that happened.
    expect(rebuild.takeOver()).toBe(rebuild.takeOver());
    await rebuild.takeOver();
    expect(seen.tookOver).toHaveLength(1);
  });

  it('takes over a projection that keeps nothing in memory', async () => {
    const f = await folded(1);
    const { host, seen } = hostOf(f);
    const rebuild = await SideBySideRebuild.begin(v2({ rolledBack: undefined }), f.store, host);
    await rebuild.finish(1);
    expect(seen.tookOver).toEqual([rebuild]);
    expect(f.rows('SELECT n FROM seen')).toEqual([{ n: 10 }]);
  });

  it('does not take over when the next version stopped, and says why', async () => {
    const f = await folded(1);
    const { host, seen } = hostOf(f);
    const broken = v2({
      async apply() {
        throw markStorageFault(new Error('disk gone'));
      },
    });
    const rebuild = await SideBySideRebuild.begin(broken, f.store, host);
    await expect(rebuild.finish(1)).rejects.toThrow(new Error('the rebuild of recorder stopped: disk gone'));
    expect(seen.inTurn).toBe(0);
    expect(seen.tookOver).toEqual([]);
    expect(f.checkpointRow('recorder')).toEqual({ position: 1, version: 1 });
  });

  it('while the serving runner follows the log, builds on, reports progress, and takes over at the head', async () => {
    const f = await folded(3);
    const { host, seen } = hostOf(f);
    const rebuild = await SideBySideRebuild.begin(v2(), f.store, host);
    rebuild.follow();
    await until(() => seen.tookOver.length === 1);
    // One progress report per batch of one event.
    expect(seen.progressed).toBe(3);
    expect(f.checkpointRow('recorder')).toEqual({ position: 3, version: 2 });
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 10 }, { n: 20 }, { n: 30 }]);
  });

  it('while the serving runner does not follow, builds on but neither asks the head nor takes over', async () => {
    const f = await folded(2);
    const { host, seen } = hostOf(f, { following: () => false });
    const rebuild = await SideBySideRebuild.begin(v2(), f.store, host);
    rebuild.follow();
    await until(() => seen.progressed === 2);
    expect(rebuild.progress().position).toBe(2);
    expect(seen.heads).toBe(0);
    expect(seen.tookOver).toEqual([]);
    const stops = seen.stops;
    rebuild.stop();
    expect(seen.stops).toBe(stops + 1);
  });

  it('once taking over, reads the head no more', async () => {
    const f = await folded(2);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const { host, seen } = hostOf(f, { head: async () => (seen.heads++, 100) });
    const projection = v2({
      async apply(event: RecordedEvent, db: SqlSession) {
        started = true;
        await gate;
        await db.run('INSERT INTO seen (position, n) VALUES (?, ?)', event.position, (event.data as Noted).n * 10);
      },
    });
    const rebuild = await SideBySideRebuild.begin(projection, f.store, host);
    rebuild.follow();
    await until(() => started);
    const heads = seen.heads;
    const takingOver = rebuild.takeOver();
    // The batch in progress ends (and reports its progress) during the take-over.
    release();
    await takingOver;
    expect(seen.progressed).toBe(1);
    expect(seen.heads).toBe(heads);
    expect(f.checkpointRow('recorder')).toEqual({ position: 1, version: 2 });
  });
});

describe('the take-over’s transaction', () => {
  it('locks both versions and gives up on tables readers hold for 200 ms, then tries again after a random wait of up to that', async () => {
    const f = await folded(2);
    const { host, seen } = hostOf(f);
    const { store, asked } = lockingStore(f.store, 2);
    vi.spyOn(Math, 'random').mockReturnValue(0.05);
    const timeout = vi.spyOn(globalThis, 'setTimeout');
    const rebuild = await SideBySideRebuild.begin(v2(), store, host);
    await rebuild.finish(2);
    expect(asked).toHaveLength(3);
    for (const options of asked) expect(options).toEqual({ lock: ['projection:recorder', 'projection:recorder__v2'], tableLockTimeoutMs: 200 });
    expect(timeout.mock.calls.filter(([, ms]) => ms === 10)).toHaveLength(2);
    expect(seen.tookOver).toEqual([rebuild]);
    expect(f.checkpointRow('recorder')).toEqual({ position: 2, version: 2 });
    // The served table, left aside by the engine, is dropped after.
    expect(f.tableExists('seen__old')).toBe(false);
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 10 }, { n: 20 }]);
  });

  it('gives up after 50 attempts', async () => {
    const f = await folded(1);
    const { host, seen } = hostOf(f);
    const { store, asked } = lockingStore(f.store, Number.POSITIVE_INFINITY);
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const rebuild = await SideBySideRebuild.begin(v2(), store, host);
    await expect(rebuild.finish(1)).rejects.toBeInstanceOf(TableLockTimeout);
    expect(asked).toHaveLength(50);
    expect(seen.tookOver).toEqual([]);
    expect(f.checkpointRow('recorder')).toEqual({ position: 1, version: 1 });
  });

  it('does not try again on another error', async () => {
    const f = await folded(1);
    const { host } = hostOf(f);
    const { store, asked } = lockingStore(f.store, 0, new Error('connection lost'));
    const rebuild = await SideBySideRebuild.begin(v2(), store, host);
    await expect(rebuild.finish(1)).rejects.toThrow('connection lost');
    expect(asked).toHaveLength(1);
  });
});
