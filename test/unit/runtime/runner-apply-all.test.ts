import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import type { SqlSession } from '../../../src/store/sql';
import { misbehave, openFiles, recorder, type Noted } from './runner-harness';

/** A projection that folds a whole batch at once (`applyAll`), logging what it was given. */
function batched(calls: number[][], extra: Parameters<typeof recorder>[0] = {}) {
  const projection = recorder({
    async applyAll(events: readonly RecordedEvent[], db: SqlSession, stop?: () => Promise<boolean>) {
      calls.push(events.map((e) => e.position));
      let n = 0;
      for (const event of events) {
        await projection.apply(event, db);
        n++;
        if (stop && (await stop())) break;
      }
      return n;
    },
    ...extra,
  });
  return projection;
}

describe('a projection that applies a batch at once', () => {
  it('is given the events it reads past its checkpoint and up to until, in one call a batch', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    f.note({ n: 2 }, 'Other');
    f.note({ n: 3 });
    f.note({ n: 4 });
    const calls: number[][] = [];
    const runner = f.runner([batched(calls)]);
    await runner.catchUp({ until: { recorder: 3 } });
    expect(calls).toEqual([[1, 3]]);
    expect(f.checkpointRow('recorder')).toEqual({ position: 3, version: 1 });
    await runner.catchUp();
    expect(calls).toEqual([[1, 3], [4]]);
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 1 }, { n: 3 }, { n: 4 }]);
    // A batch of events it does not read only moves the checkpoint.
    f.note({ n: 5 }, 'Other');
    await runner.catchUp();
    expect(calls).toEqual([[1, 3], [4]]);
    expect(runner.checkpoints()).toEqual({ recorder: 5 });
  });

  it('when the batch throws, applies it again event by event with apply, quarantining the one that throws', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    f.note({ n: 2, throws: 'bad' });
    f.note({ n: 3 });
    const calls: number[][] = [];
    const projection = batched(calls);
    const runner = f.runner([projection]);
    await runner.catchUp();
    expect(calls).toEqual([[1, 2, 3]]);
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 1 }, { n: 3 }]);
    expect(runner.quarantines().latest.map((q) => q.position)).toEqual([2]);
    expect(runner.checkpoints()).toEqual({ recorder: 3 });
  });

  it('in a lane, commits the part of a slice it applied and is given the rest in the next round', async () => {
    const f = openFiles();
    for (let n = 1; n <= 3; n++) f.note({ n, lane: 'a' });
    f.note({ n: 4, lane: 'b' });
    const calls: number[][] = [];
    const projection = recorder({
      name: 'laned',
      lane: (event: RecordedEvent) => (event.data as Noted).lane!,
      // One event a call, whatever it is given.
      async applyAll(events: readonly RecordedEvent[], db: SqlSession) {
        calls.push(events.map((e) => e.position));
        await db.run('INSERT INTO seen (position, n) VALUES (?, ?)', events[0].position, (events[0].data as Noted).n);
        await misbehave(events[0]);
        return 1;
      },
    });
    const runner = f.runner([projection]);
    await runner.catchUp();
    expect(calls).toEqual([[4], [1, 2, 3], [2, 3], [3]]);
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([1, 2, 3, 4].map((n) => ({ n })));
    expect(runner.checkpoints()).toEqual({ laned: 4 });
    expect(f.rows('SELECT * FROM projection_lanes')).toEqual([]);
  });
});
