import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import type { SqlSession } from '../../../src/store/sql';
import type { AppliedBatch } from '../../../src/store/runner';
import { ChangeRecorder } from '../../../src/runtime/change-log';
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
    const runner = f.runner([laned(order, { parts: (event: RecordedEvent) => ((event.data as Noted).lane === 'a' ? 6000 : 1) })]);
    await runner.catchUp();
    expect(order).toEqual(['b3', 'a1', 'a2']);
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
    const again = f.runner([laned(order, { async apply(event: RecordedEvent, db: SqlSession) {
      const { lane, n } = event.data as Noted;
      await db.run('INSERT INTO seen (position, n) VALUES (?, ?)', event.position, n);
      order.push(`${lane}${n}`);
    } })]);
    await again.catchUp();
    expect(order).toEqual(['a2', 'a4', 'a5']);
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
