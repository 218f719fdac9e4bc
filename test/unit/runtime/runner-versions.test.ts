import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import type { SqlSession } from '../../../src/store/sql';
import type { AppliedBatch } from '../../../src/store/runner';
import { openFiles, recorder, until, type Noted } from './runner-harness';

/** Version 2 writes n * 10: which version folded a row shows. */
const v2 = (extra: Parameters<typeof recorder>[0] = {}) =>
  recorder({
    version: 2,
    async apply(event: RecordedEvent, db: SqlSession) {
      const { n, throws } = event.data as Noted;
      if (throws) throw new Error(throws);
      await db.run('INSERT INTO seen (position, n) VALUES (?, ?)', event.position, n * 10);
    },
    ...extra,
  });

describe('a projection whose version changed', () => {
  it('is rebuilt in place from the first event when side-by-side is off, its quarantines forgotten', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    f.note({ n: 2, throws: 'old fold' });
    await f.runner([recorder()]).catchUp();
    expect(f.rows('SELECT count(*) AS c FROM projection_failures')).toEqual([{ c: 1 }]);
    const runner = f.runner([v2()], { sideBySide: false });
    await runner.ready;
    expect(f.checkpointRow('recorder')).toEqual({ position: 0, version: 2 });
    expect(f.rows('SELECT count(*) AS c FROM seen')).toEqual([{ c: 0 }]);
    expect(f.rows('SELECT count(*) AS c FROM projection_failures')).toEqual([{ c: 0 }]);
    expect(runner.quarantines().count).toBe(0);
    await runner.catchUp();
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 10 }]);
    expect(runner.quarantines().count).toBe(1);
    expect(f.checkpointRow('recorder')).toEqual({ position: 2, version: 2 });
  });

  it('is built side by side while the old tables serve unchanged, then takes over at the head', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    f.note({ n: 2, throws: 'old fold' });
    await f.runner([recorder()]).catchUp();
    f.note({ n: 3 });
    const projection = v2();
    const runner = f.runner([projection]);
    const applied: AppliedBatch[] = [];
    runner.applied$.subscribe((b) => applied.push(b));
    await runner.ready;
    // The old version is frozen at its checkpoint, its rows and quarantines as they were.
    expect(runner.checkpoints()).toEqual({ recorder: 2 });
    expect(runner.quarantines().count).toBe(1);
    expect(runner.rebuilds()).toEqual({ recorder: { version: 2, position: 0 } });
    expect(f.checkpointRow('recorder')).toEqual({ position: 2, version: 1 });
    expect(f.checkpointRow('recorder__v2')).toEqual({ position: 0, version: 2 });
    await runner.catchUp({ rebuilds: 'background' });
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 1 }]);
    expect(runner.checkpoints()).toEqual({ recorder: 2 });

    const before = projection.rolledBackCalls;
    await runner.catchUp();
    expect(runner.rebuilds()).toEqual({});
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 10 }, { n: 30 }]);
    expect(f.checkpointRow('recorder')).toEqual({ position: 3, version: 2 });
    expect(f.checkpointRow('recorder__v2')).toBeUndefined();
    expect(f.tableExists('seen__v2')).toBe(false);
    expect(runner.checkpoints()).toEqual({ recorder: 3 });
    expect(runner.quarantines()).toEqual({ count: 1, latest: [expect.objectContaining({ projection: 'recorder', position: 2, error: 'Error: old fold' })] });
    expect(f.rows('SELECT projection, position FROM projection_failures')).toEqual([{ projection: 'recorder', position: 2 }]);
    expect(applied).toContainEqual({ projection: 'recorder', events: [], unknown: true });
    // Its in-memory state mirrored the tables that are gone.
    expect(projection.rolledBackCalls).toBeGreaterThan(before);

    // Serving again: new events go to the new version's tables.
    f.note({ n: 4 });
    await runner.catchUp();
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 10 }, { n: 30 }, { n: 40 }]);
  });

  it('keeps folding new events with the previous version while the next is built, when it has one', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    const v1 = recorder();
    await f.runner([v1]).catchUp();
    f.note({ n: 2 });
    const runner = f.runner([v2({ previous: v1 })]);
    await runner.catchUp({ rebuilds: 'background' });
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 1 }, { n: 2 }]);
    expect(runner.checkpoints()).toEqual({ recorder: 2 });
    expect(runner.rebuilds()).toEqual({ recorder: { version: 2, position: 0 } });
    await runner.catchUp();
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 10 }, { n: 20 }]);
    expect(f.checkpointRow('recorder')).toEqual({ position: 2, version: 2 });
  });

  it('while following, the rebuild reports its progress and takes over once it reaches the head', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    await f.runner([recorder()]).catchUp();
    for (let n = 2; n <= 5; n++) f.note({ n });
    const runner = f.runner([v2()], { batchSize: 2, pollIntervalMs: 5 });
    // The serving runner, all of whose projections are frozen, reads nothing: only the rebuild reads.
    const from: unknown[] = [];
    const readAll = f.log.readAll.bind(f.log);
    f.log.readAll = (options) => {
      from.push(options?.afterPosition);
      return readAll(options);
    };
    let progress = 0;
    runner.progress$.subscribe(() => progress++);
    runner.start();
    await until(() => Object.keys(runner.rebuilds()).length === 0 && runner.checkpoints().recorder === 5);
    expect(progress).toBeGreaterThan(2);
    expect(from.filter((after) => after === null)).toEqual([]);
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([10, 20, 30, 40, 50].map((n) => ({ n })));
    f.note({ n: 6 });
    await until(() => runner.checkpoints().recorder === 6);
    expect(f.rows('SELECT n FROM seen WHERE position = 6')).toEqual([{ n: 60 }]);
    runner.stop();
  });

  it('rebuilt in place, a laned projection forgets how far its lanes had gone', async () => {
    const f = openFiles();
    const laned = (extra: Parameters<typeof recorder>[0] = {}) => recorder({ lane: (event: RecordedEvent) => (event.data as Noted).lane!, ...extra });
    f.note({ n: 1, lane: 'b' });
    f.note({ n: 2, lane: 'a', throws: 'fault' });
    f.note({ n: 3, lane: 'b' });
    f.note({ n: 4, lane: 'a' });
    f.note({ n: 5, lane: 'a' });
    await f.runner([laned()]).catchUp();
    expect(f.rows('SELECT lane, position FROM projection_lanes')).toEqual([{ lane: 'b', position: 3 }]);
    const runner = f.runner([laned({ version: 2, apply: v2().apply })], { sideBySide: false });
    await runner.catchUp();
    // Event 2 fails version 2 too (quarantined); lane b's events are folded again.
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([10, 30, 40, 50].map((n) => ({ n })));
  });

  it('a take-over replaces only its own projection, settles waiters, and leaves the other rebuilds going', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    const other = (version: number, extra: Parameters<typeof recorder>[0] = {}) => recorder({ name: 'other', table: 'other_seen', version, ...extra });
    await f.runner([recorder(), other(1), recorder({ name: 'third', table: 'third_seen' })]).catchUp();
    f.note({ n: 2 });
    const broken = other(2, {
      async apply() {
        throw (await import('../../../src/store/storage-fault')).markStorageFault(new Error('disk gone'));
      },
    });
    const runner = f.runner([v2(), broken, recorder({ name: 'third', table: 'third_seen' })]);
    await runner.catchUp({ rebuilds: 'background' });
    const waiting = runner.waitFor(2, ['recorder']);
    await expect(runner.catchUp({ toPosition: 2 })).rejects.toThrow('the rebuild of other stopped: disk gone');
    await waiting;
    expect(runner.checkpoints()).toEqual({ recorder: 2, other: 1, third: 2 });
    expect(runner.rebuilds()).toEqual({ other: { version: 2, position: 0 } });
  });

  it('a rebuild that stopped on a storage fault does not take over', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    await f.runner([recorder()]).catchUp();
    const runner = f.runner([
      v2({
        async apply() {
          throw (await import('../../../src/store/storage-fault')).markStorageFault(new Error('disk gone'));
        },
      }),
    ]);
    await expect(runner.catchUp()).rejects.toThrow('the rebuild of recorder stopped: disk gone');
    expect(f.checkpointRow('recorder')).toEqual({ position: 1, version: 1 });
    expect(f.rows('SELECT n FROM seen')).toEqual([{ n: 1 }]);
  });
});
