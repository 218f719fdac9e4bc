import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppliedBatch } from '../../../src/store/runner';
import { openFiles, recorder, until, type Noted } from './runner-harness';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the projection runner, catching up', () => {
  it('applies the events the projection reads, in order, and moves its checkpoint past the others', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    f.note({ n: 2 }, 'Ignored');
    f.note({ n: 3 });
    f.note({ n: 4 }, 'Ignored');
    const runner = f.runner([recorder()]);
    const applied: AppliedBatch[] = [];
    runner.applied$.subscribe((b) => applied.push(b));
    await runner.catchUp();
    expect(f.rows('SELECT position, n FROM seen ORDER BY position')).toEqual([
      { position: 1, n: 1 },
      { position: 3, n: 3 },
    ]);
    expect(runner.checkpoints()).toEqual({ recorder: 4 });
    expect(f.checkpointRow('recorder')).toEqual({ position: 4, version: 1 });
    expect(applied).toHaveLength(1);
    expect(applied[0].projection).toBe('recorder');
    expect(applied[0].events.map((e) => e.position)).toEqual([1, 3]);
    expect(runner.failures()).toEqual({});
    expect(runner.quarantines()).toEqual({ count: 0, latest: [] });
    expect(runner.rebuilds()).toEqual({});
  });

  it('a projection without handles reads every event', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    f.note({ n: 2 }, 'Other');
    const runner = f.runner([recorder({ handles: undefined })]);
    await runner.catchUp();
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('reads the log in batches of batchSize and reports progress after each', async () => {
    const f = openFiles();
    for (let n = 1; n <= 5; n++) f.note({ n });
    const runner = f.runner([recorder()], { batchSize: 2 });
    let batches = 0;
    runner.progress$.subscribe(() => batches++);
    const progress: [number, number][] = [];
    await runner.catchUp({ onProgress: (position, head) => progress.push([position, head]) });
    expect(batches).toBe(3);
    expect(progress).toEqual([
      [2, 5],
      [4, 5],
      [5, 5],
    ]);
    expect(f.rows('SELECT count(*) AS c FROM seen')).toEqual([{ c: 5 }]);
  });

  it('stops at toPosition, or per projection at until, and goes on from there the next time', async () => {
    const f = openFiles();
    for (let n = 1; n <= 6; n++) f.note({ n });
    const a = recorder();
    const b = recorder({ name: 'other', table: 'other_seen' });
    const runner = f.runner([a, b], { batchSize: 4 });
    await runner.catchUp({ toPosition: 2 });
    expect(runner.checkpoints()).toEqual({ recorder: 2, other: 2 });
    await runner.catchUp({ until: { recorder: 3 } });
    expect(runner.checkpoints()).toEqual({ recorder: 3, other: 6 });
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    // until holds for that catch-up only.
    await runner.catchUp();
    expect(runner.checkpoints()).toEqual({ recorder: 6, other: 6 });
    expect(f.rows('SELECT count(*) AS c FROM seen')).toEqual([{ c: 6 }]);
  });

  it('a second runner on the same store resumes from the stored checkpoint without applying anything twice', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    f.note({ n: 2 });
    await f.runner([recorder()]).catchUp();
    f.note({ n: 3 });
    const second = f.runner([recorder()]);
    await second.ready;
    expect(second.checkpoints()).toEqual({ recorder: 2 });
    await second.catchUp();
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(second.checkpoints()).toEqual({ recorder: 3 });
  });

  it('writes the checkpoint of a new version at once, before any event', async () => {
    const f = openFiles();
    const runner = f.runner([recorder()]);
    await runner.ready;
    expect(f.checkpointRow('recorder')).toEqual({ position: 0, version: 1 });
    expect(runner.checkpoints()).toEqual({ recorder: 0 });
    expect(f.tableExists('projection_lanes')).toBe(false);
    expect(f.tableExists('projection_changes')).toBe(false);
  });

  it('a batch of events none of which it reads moves the checkpoint without telling applied$', async () => {
    const f = openFiles();
    f.note({ n: 1 }, 'Other');
    const runner = f.runner([recorder()]);
    const applied: AppliedBatch[] = [];
    runner.applied$.subscribe((b) => applied.push(b));
    await runner.catchUp();
    expect(runner.checkpoints()).toEqual({ recorder: 1 });
    expect(f.checkpointRow('recorder')).toEqual({ position: 1, version: 1 });
    expect(applied).toEqual([]);
  });

  it('reads the log no further than the head, however far toPosition lies', async () => {
    const f = openFiles();
    for (let n = 1; n <= 4; n++) f.note({ n });
    const runner = f.runner([recorder()], { batchSize: 2 });
    expect(runner.checkpoints()).toEqual({ recorder: 0 });
    let reads = 0;
    const readAll = f.log.readAll.bind(f.log);
    f.log.readAll = (...args) => {
      reads++;
      return readAll(...args);
    };
    await runner.catchUp();
    expect(reads).toBe(2);
    await runner.catchUp({ toPosition: 100 });
    expect(reads).toBe(3);
    expect(runner.checkpoints()).toEqual({ recorder: 4 });
  });

  it('an until holds for its catch-up only: following the log goes past it', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    f.note({ n: 2 });
    const runner = f.runner([recorder()], { pollIntervalMs: 5 });
    await runner.catchUp({ until: { recorder: 1 } });
    expect(runner.checkpoints()).toEqual({ recorder: 1 });
    runner.start();
    await until(() => runner.checkpoints().recorder === 2);
    runner.stop();
  });

  it('tells applied$ only what each projection applied, when they stand at different positions', async () => {
    const f = openFiles();
    for (let n = 1; n <= 6; n++) f.note({ n });
    const runner = f.runner([recorder(), recorder({ name: 'other', table: 'other_seen' })]);
    await runner.catchUp({ until: { recorder: 3, other: 1 } });
    const applied: Record<string, number[]> = {};
    runner.applied$.subscribe((b) => (applied[b.projection] ??= []).push(...b.events.map((e) => e.position)));
    await runner.catchUp({ until: { recorder: 5 } });
    expect(applied).toEqual({ recorder: [4, 5], other: [2, 3, 4, 5, 6] });
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
    expect(runner.quarantines().count).toBe(0);
  });

  it('takes each projection’s lock in its transactions, and the schema lock to bind', async () => {
    const f = openFiles();
    f.note({ n: 1, throws: 'bad' });
    f.note({ n: 2 }, 'Other');
    const transaction = vi.spyOn(f.store, 'transaction');
    const runner = f.runner([recorder(), recorder({ name: 'laned', table: 'laned_seen', lane: () => 'a', handles: ['Noted'] })]);
    await runner.catchUp();
    const locks = transaction.mock.calls.map(([, options]) => options?.lock);
    expect(locks.slice(0, 2)).toEqual([
      ['schema', 'projection:recorder'],
      ['schema', 'projection:laned'],
    ]);
    // The batches, their retries event by event, the lane's slices and their checkpoints.
    expect(locks.length).toBeGreaterThan(4);
    expect(new Set(locks.slice(2))).toEqual(new Set(['projection:recorder', 'projection:laned']));
    // A batch the laned projection does not read moves its checkpoint alone, under its lock too.
    f.note({ n: 3 }, 'Other');
    const before = transaction.mock.calls.length;
    await runner.catchUp();
    expect(transaction.mock.calls.slice(before).map(([, options]) => options?.lock)).toEqual(['projection:recorder', 'projection:laned']);
  });

  it('a stopped projection is given no more batches', async () => {
    const f = openFiles();
    f.note({ n: 1, throws: 'fault' });
    f.note({ n: 2 });
    const runner = f.runner(
      [recorder(), recorder({ name: 'other', table: 'other_seen', apply: (event, db) => db.run('INSERT INTO other_seen (position, n) VALUES (?, ?)', event.position, 0).then(() => undefined) })],
      { batchSize: 1 },
    );
    await runner.catchUp();
    expect(runner.failures()).toEqual({ recorder: 'disk I/O error' });
    expect(f.rows('SELECT n FROM seen')).toEqual([]);
    expect(runner.checkpoints()).toEqual({ recorder: 0, other: 2 });
  });

  it('idle() waits for the batch in progress', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const runner = f.runner([recorder({ async apply(event, db) {
      started = true;
      await gate;
      await db.run('INSERT INTO seen (position, n) VALUES (?, ?)', event.position, (event.data as Noted).n);
    } })]);
    const catchingUp = runner.catchUp();
    await until(() => started);
    let idle = false;
    const idling = runner.idle().then(() => (idle = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    release();
    await idling;
    expect(f.rows('SELECT n FROM seen')).toEqual([{ n: 1 }]);
    await catchingUp;
  });
});

describe('waitFor', () => {
  it('resolves at once when the projections are there, else once they apply the position', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    const runner = f.runner([recorder(), recorder({ name: 'other', table: 'other_seen' })]);
    await runner.catchUp();
    await runner.waitFor(1);
    let resolved = false;
    const waiting = runner.waitFor(2, ['recorder']).then(() => (resolved = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(resolved).toBe(false);
    f.note({ n: 2 });
    await runner.catchUp({ until: { other: 1 } });
    await waiting;
    expect(resolved).toBe(true);
    expect(runner.checkpoints()).toEqual({ recorder: 2, other: 1 });
    // Waiting on all of them waits for the one behind.
    let all = false;
    const allWaiting = runner.waitFor(2).then(() => (all = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(all).toBe(false);
    await runner.catchUp();
    await allWaiting;
  });

  it('never resolves on names that match no projection', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    const runner = f.runner([recorder()]);
    await runner.catchUp();
    let settled = false;
    void runner.waitFor(0, ['nobody']).then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(settled).toBe(false);
  });

  it('rejects once a projection it waits on has stopped, naming it', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    f.note({ n: 2, throws: 'fault' });
    const errors: [string, string][] = [];
    const runner = f.runner([recorder(), recorder({ name: 'other', table: 'other_seen', apply: async () => undefined })], {
      onError: (name, err) => errors.push([name, err.message]),
    });
    const waiting = expect(runner.waitFor(2, ['recorder'])).rejects.toThrow('projection recorder has stopped: disk I/O error');
    const other = runner.waitFor(2, ['other']);
    await runner.catchUp();
    await waiting;
    await other;
    await expect(runner.waitFor(1)).rejects.toThrow('projection recorder has stopped: disk I/O error');
    expect(errors).toEqual([['recorder', 'disk I/O error']]);
    expect(runner.failures()).toEqual({ recorder: 'disk I/O error' });
    expect(runner.checkpoints()).toEqual({ recorder: 0, other: 2 });
  });
});

describe('following the log', () => {
  it('applies appends as they come, woken by append notices', async () => {
    const f = openFiles();
    const runner = f.runner([recorder()], { notifications: { appended$: f.log.appends, moved$: f.log.appends, notify: () => undefined }, pollIntervalMs: 60_000 });
    runner.start();
    runner.start();
    await runner.ready;
    const position = f.note({ n: 1 });
    await runner.waitFor(position);
    f.note({ n: 2 });
    await until(() => runner.checkpoints().recorder === 2);
    runner.stop();
    f.note({ n: 3 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runner.checkpoints().recorder).toBe(2);
    await runner.idle();
  });

  it('without notices it polls', async () => {
    const f = openFiles();
    const runner = f.runner([recorder()], { pollIntervalMs: 5 });
    runner.start();
    await runner.ready;
    f.note({ n: 1 });
    await until(() => runner.checkpoints().recorder === 1);
    runner.stop();
  });

  it('keeps one poll timer at the interval asked however often started, and clears it on stop', async () => {
    const f = openFiles();
    const setTimer = vi.spyOn(globalThis, 'setInterval');
    const clearTimer = vi.spyOn(globalThis, 'clearInterval');
    const runner = f.runner([recorder()], { pollIntervalMs: 7 });
    runner.start();
    runner.start();
    await runner.ready;
    await until(() => setTimer.mock.calls.length > 0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(setTimer.mock.calls.map(([, ms]) => ms)).toEqual([7]);
    runner.stop();
    expect(clearTimer).toHaveBeenCalledWith(setTimer.mock.results[0].value);
  });

  it('an idle follower reads the log only when woken', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    const runner = f.runner([recorder()], { notifications: { appended$: f.log.appends, moved$: f.log.appends, notify: () => undefined }, pollIntervalMs: 60_000 });
    runner.start();
    await runner.waitFor(1);
    let reads = 0;
    const readAll = f.log.readAll.bind(f.log);
    f.log.readAll = (...args) => {
      reads++;
      return readAll(...args);
    };
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reads).toBeLessThanOrEqual(1);
    runner.stop();
  });

  it('a read of the log that fails is tried again at the next poll', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    const readAll = f.log.readAll.bind(f.log);
    let failures = 1;
    f.log.readAll = (...args) => (failures-- > 0 ? Promise.reject(new Error('log unreachable')) : readAll(...args));
    const runner = f.runner([recorder()], { pollIntervalMs: 5 });
    runner.start();
    await until(() => runner.checkpoints().recorder === 1);
    runner.stop();
    expect(runner.failures()).toEqual({});
    expect(f.checkpointRow('recorder')).toEqual({ position: 1, version: 1 });
  });

  it('reads nothing, catching up or following, once every projection has stopped', async () => {
    const f = openFiles();
    f.note({ n: 1, throws: 'fault' });
    f.note({ n: 2 });
    const runner = f.runner([recorder()], { batchSize: 1, pollIntervalMs: 5 });
    await runner.catchUp();
    expect(runner.failures()).toEqual({ recorder: 'disk I/O error' });
    const reads: unknown[] = [];
    const readAll = f.log.readAll.bind(f.log);
    f.log.readAll = (options) => {
      reads.push(options?.afterPosition);
      return readAll(options);
    };
    await runner.catchUp();
    expect(reads).toEqual([]);
  });

  it('stops following once every projection has stopped', async () => {
    const f = openFiles();
    f.note({ n: 1, throws: 'fault' });
    const runner = f.runner([recorder()], { pollIntervalMs: 5 });
    runner.start();
    await until(() => runner.failures().recorder !== undefined);
    let reads = 0;
    const readAll = f.log.readAll.bind(f.log);
    f.log.readAll = (...args) => {
      reads++;
      return readAll(...args);
    };
    f.note({ n: 2 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(reads).toBe(0);
  });
});

describe('a runner that cannot bind its projections', () => {
  it('reports every projection failed and rejects ready and waiters', async () => {
    const f = openFiles();
    const broken = recorder({ tables: [{ name: 'seen', columns: { position: 'integer' }, primaryKey: ['nope'], orderBy: 'position' }] });
    const runner = f.runner([recorder({ name: 'first', table: 'first_seen' }), broken, recorder({ name: 'third', table: 'third_seen' })]);
    const waiting = runner.waitFor(1);
    await expect(runner.ready).rejects.toThrow();
    await expect(waiting).rejects.toThrow();
    expect(Object.keys(runner.failures()).sort()).toEqual(['first', 'recorder', 'third']);
    expect(runner.checkpoints()).toEqual({ first: 0, recorder: 0, third: 0 });
    expect(runner.quarantines()).toEqual({ count: 0, latest: [] });
    await expect(runner.catchUp()).rejects.toThrow();
    runner.start();
    runner.stop();
  });
});
