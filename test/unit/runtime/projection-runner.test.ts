import { describe, expect, it } from 'vitest';
import type { AppliedBatch } from '../../../src/store/runner';
import { openFiles, recorder, until } from './runner-harness';

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
    await expect(runner.catchUp()).rejects.toThrow();
    runner.start();
    runner.stop();
  });
});
