import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import type { SqlSession } from '../../../src/store/sql';
import type { AppliedBatch } from '../../../src/store/runner';
import { ChangeRecorder } from '../../../src/runtime/change-log';
import { Subject } from 'rxjs';
import type { RunnerOptions } from '../../../src/runtime/projection-runner';
import { misbehave, openFiles, recorder, until, type Noted } from './runner-harness';

/** A laned recorder: its lane is the event's `lane`, and it logs the order it applied events in. */
function laned(order: string[] = [], extra: Parameters<typeof recorder>[0] = {}) {
  return recorder({
    name: 'laned',
    handles: ['Noted'],
    lane: (event: RecordedEvent) => (event.data as Noted).lane!,
    async apply(event: RecordedEvent, db: SqlSession) {
      const { lane, n } = event.data as Noted;
      await db.run('INSERT INTO seen (position, n) VALUES (?, ?)', event.position, n);
      await misbehave(event);
      order.push(`${lane}${n}`);
    },
    ...extra,
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a laned projection under the runner', () => {
  it('applies every lane, moves its checkpoint past events it does not read, and forgets lane positions behind it', async () => {
    const f = openFiles();
    f.note({ n: 1, lane: 'a' });
    f.note({ n: 2, lane: 'b' });
    f.note({ n: 3 }, 'Other');
    f.note({ n: 4, lane: 'a' });
    f.note({ n: 5 }, 'Other');
    const order: string[] = [];
    const runner = f.runner([laned(order)], { batchSize: 2 });
    const applied: AppliedBatch[] = [];
    runner.applied$.subscribe((b) => applied.push(b));
    await runner.ready;
    expect(f.tableExists('projection_lanes')).toBe(true);
    await runner.catchUp();
    expect(order.sort()).toEqual(['a1', 'a4', 'b2']);
    expect(runner.checkpoints()).toEqual({ laned: 5 });
    expect(f.checkpointRow('laned')).toEqual({ position: 5, version: 1 });
    expect(f.rows('SELECT * FROM projection_lanes')).toEqual([]);
    expect(applied.flatMap((b) => b.events.map((e) => e.position)).sort()).toEqual([1, 2, 4]);
    expect(applied.every((b) => b.projection === 'laned')).toBe(true);
  });

  it('gives each lane one slice a round, the lane with the least work first', async () => {
    const f = openFiles();
    // Lane a holds more than one slice of work (10,000 parts a slice); b holds one event.
    f.note({ n: 1, lane: 'a', items: ['x'] });
    f.note({ n: 2, lane: 'a', items: ['x'] });
    f.note({ n: 3, lane: 'b' });
    const order: string[] = [];
    const runner = f.runner([recorder({ name: 'plain', table: 'plain_seen' }), laned(order, { parts: (event: RecordedEvent) => ((event.data as Noted).lane === 'a' ? 6000 : 1) })]);
    await runner.catchUp();
    expect(order).toEqual(['b3', 'a1', 'a2']);
    expect(runner.checkpoints()).toEqual({ plain: 3, laned: 3 });
    f.note({ n: 4, lane: 'b' });
    await runner.catchUp();
    expect(order).toEqual(['b3', 'a1', 'a2', 'b4']);
  });

  it('a lane working alone takes long slices: one transaction for many events', async () => {
    const f = openFiles();
    for (let n = 1; n <= 30; n++) f.note({ n, lane: 'a' });
    const runner = f.runner([laned([], { parts: () => 1000 })], { batchSize: 100 });
    let batches = 0;
    runner.applied$.subscribe(() => batches++);
    await runner.catchUp();
    // 30,000 parts: one slice alone (10,000 parts a slice with other lanes waiting would take three).
    expect(batches).toBe(1);
    expect(runner.checkpoints()).toEqual({ laned: 30 });
  });

  it('quarantines a failing event of a lane and goes on', async () => {
    const f = openFiles();
    f.note({ n: 1, lane: 'a', throws: 'nope' });
    f.note({ n: 2, lane: 'b' });
    f.note({ n: 3, lane: 'a' });
    const runner = f.runner([laned()]);
    await runner.catchUp();
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 2 }, { n: 3 }]);
    expect(runner.quarantines().latest.map((q) => q.position)).toEqual([1]);
    expect(runner.checkpoints()).toEqual({ laned: 3 });
  });

  it('a storage fault in one lane stops the projection with the other lanes committed, and a restart resumes each lane', async () => {
    const f = openFiles();
    f.note({ n: 1, lane: 'b' });
    f.note({ n: 2, lane: 'a', throws: 'fault' });
    f.note({ n: 3, lane: 'b' });
    f.note({ n: 4, lane: 'a' });
    f.note({ n: 5, lane: 'a' });
    const errors: string[] = [];
    const first = f.runner([laned()], { onError: (name, err) => errors.push(`${name}: ${err.message}`) });
    await first.catchUp();
    expect(errors).toEqual(['laned: disk I/O error']);
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 1 }, { n: 3 }]);
    expect(first.checkpoints()).toEqual({ laned: 1 });
    expect(f.rows('SELECT lane, position FROM projection_lanes')).toEqual([{ lane: 'b', position: 3 }]);

    const order: string[] = [];
    const againApplied: number[] = [];
    const again = f.runner([laned(order, { async apply(event: RecordedEvent, db: SqlSession) {
      const { lane, n } = event.data as Noted;
      await db.run('INSERT INTO seen (position, n) VALUES (?, ?)', event.position, n);
      order.push(`${lane}${n}`);
    } })]);
    again.applied$.subscribe((b) => againApplied.push(...b.events.map((e) => e.position)));
    await again.catchUp();
    expect(order).toEqual(['a2', 'a4', 'a5']);
    expect(againApplied.sort()).toEqual([2, 4, 5]);
    expect(again.checkpoints()).toEqual({ laned: 5 });
    expect(again.quarantines().count).toBe(0);
    expect(f.rows('SELECT * FROM projection_lanes')).toEqual([]);
  });

  it('stops a long slice when the log moves, so new events of another lane wait one event at most', async () => {
    const f = openFiles();
    for (let n = 1; n <= 40; n++) f.note({ n, lane: 'a' });
    const order: string[] = [];
    let appended = false;
    const projection = laned(order, {
      async apply(event: RecordedEvent, db: SqlSession) {
        const { lane, n } = event.data as Noted;
        await db.run('INSERT INTO seen (position, n) VALUES (?, ?)', event.position, n);
        order.push(`${lane}${n}`);
        if (n === 5 && !appended) {
          appended = true;
          f.note({ n: 41, lane: 'b' });
        }
      },
    });
    const runner = f.runner([projection], { notifications: { appended$: f.log.appends, moved$: f.log.appends, notify: () => undefined }, pollIntervalMs: 60_000 });
    runner.start();
    await until(() => runner.checkpoints().laned === 41);
    runner.stop();
    const b = order.indexOf('b41');
    expect(b).toBeGreaterThan(4);
    expect(b).toBeLessThan(10);
  });

  it('following the log, a lone lane takes long slices too', async () => {
    const f = openFiles();
    for (let n = 1; n <= 10; n++) f.note({ n, lane: 'a' });
    const runner = f.runner([laned([], { parts: () => 1000 })], { batchSize: 100, pollIntervalMs: 5 });
    let batches = 0;
    runner.applied$.subscribe(() => batches++);
    runner.start();
    await until(() => runner.checkpoints().laned === 10);
    runner.stop();
    expect(batches).toBe(1);
  });

  it('without append notices a lone slice ends after a time; with them, only when the log moves', async () => {
    let now = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const slices = async (options: RunnerOptions) => {
      const f = openFiles();
      for (let n = 1; n <= 6; n++) f.note({ n, lane: 'a' });
      // Each event takes 100 ms.
      const runner = f.runner([laned([], { async apply(event: RecordedEvent, db: SqlSession) {
        now += 100;
        await db.run('INSERT INTO seen (position, n) VALUES (?, ?)', event.position, (event.data as Noted).n);
      } })], options);
      const sizes: number[] = [];
      runner.applied$.subscribe((b) => sizes.push(b.events.length));
      await runner.catchUp();
      return sizes;
    };
    expect(await slices({})).toEqual([3, 3]);
    expect(await slices({ notifications: { appended$: new Subject<number>(), moved$: new Subject<number>(), notify: () => undefined } })).toEqual([6]);
  });

  it('a storage fault stops the projection even with nobody told of errors', async () => {
    const f = openFiles();
    f.note({ n: 1, lane: 'a', throws: 'fault' });
    const runner = f.runner([laned()]);
    await runner.catchUp();
    expect(runner.failures()).toEqual({ laned: 'disk I/O error' });
  });

  it('never moves the stored checkpoint back past what another runner wrote', async () => {
    const f = openFiles();
    f.note({ n: 1 }, 'Other');
    f.note({ n: 2 }, 'Other');
    const behind = f.runner([laned()]);
    await behind.ready;
    await f.runner([laned()]).catchUp();
    expect(f.checkpointRow('laned')).toEqual({ position: 2, version: 1 });
    await behind.catchUp({ toPosition: 1 });
    expect(f.checkpointRow('laned')).toEqual({ position: 2, version: 1 });
    expect(behind.checkpoints()).toEqual({ laned: 2 });
  });

  it('a second runner on the store skips in each lane what the first applied, and keeps its checkpoint', async () => {
    const f = openFiles();
    f.note({ n: 1, lane: 'a' });
    f.note({ n: 2, lane: 'a' });
    f.note({ n: 3, lane: 'b' });
    f.note({ n: 4, lane: 'a' });
    f.note({ n: 5, lane: 'b' });
    const second = f.runner([laned()]);
    await second.ready;
    const first = f.runner([laned()]);
    await first.catchUp({ toPosition: 4 });
    await second.catchUp();
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
    expect(second.quarantines().count).toBe(0);
    expect(second.checkpoints()).toEqual({ laned: 5 });
    expect(f.checkpointRow('laned')).toEqual({ position: 5, version: 1 });
  });

  it('a projection that applies a slice in part records the changes of that part only', async () => {
    const f = openFiles();
    f.note({ n: 1, lane: 'a' });
    f.note({ n: 2, lane: 'a' });
    const projection = laned([], {
      async applyAll(events: readonly RecordedEvent[], db: SqlSession) {
        await db.run('INSERT INTO seen (position, n) VALUES (?, ?)', events[0].position, (events[0].data as Noted).n);
        return 1;
      },
    });
    const runner = f.runner([projection], { changes: new ChangeRecorder(() => 1_000_000) });
    await runner.catchUp();
    expect(f.rows('SELECT position FROM projection_changes ORDER BY position')).toEqual([{ position: 1 }, { position: 2 }]);
  });

  it('records the changes of each slice for following processes, when asked', async () => {
    const f = openFiles();
    f.note({ n: 1, lane: 'a' });
    f.note({ n: 2, lane: 'b' });
    f.note({ n: 3 }, 'Other');
    const runner = f.runner([laned(), recorder({ name: 'plain', table: 'plain_seen' })], { changes: new ChangeRecorder(() => 1_000_000) });
    await runner.catchUp();
    expect(f.rows('SELECT projection, position, event_type FROM projection_changes ORDER BY projection, position')).toEqual([
      { projection: 'laned', position: 1, event_type: 'Noted' },
      { projection: 'laned', position: 2, event_type: 'Noted' },
      { projection: 'plain', position: 2, event_type: 'Noted' },
    ]);
  });
});
