import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import { LaneBacklog, type LaneKey } from '../../../src/runtime/lane-backlog';
import { laneData, laneLog } from './lane-events';

const log = laneLog;
const rules = {
  laneOf: (event: RecordedEvent) => (event.type === 'Other' ? null : laneData(event).lane),
  partsOf: (event: RecordedEvent) => laneData(event).parts,
};
const positions = (events: readonly RecordedEvent[]) => events.map((e) => e.position);
const backlog = (checkpoint = 0, lanes: [LaneKey, number][] = []) => new LaneBacklog(checkpoint, new Map(lanes), rules);

describe('lane backlog', () => {
  it('gives every lane one slice a round, the lane with the least work first, and keeps each lane in log order', () => {
    const b = backlog();
    b.take(log('aabab'), Number.MAX_SAFE_INTEGER);
    const round = b.round(100);
    expect(round.map((s) => [s.lane, positions(s.events)])).toEqual([
      ['b', [3, 5]],
      ['a', [1, 2, 4]],
    ]);
  });

  it('cuts a slice at the budget of parts, but never below one event', () => {
    const b = backlog();
    b.take(log('aaab', [7, 5, 1, 1]), Number.MAX_SAFE_INTEGER);
    expect(b.round(10).map((s) => [s.lane, positions(s.events)])).toEqual([
      ['b', [4]],
      ['a', [1]],
    ]);
    expect(b.round(3).find((s) => s.lane === 'a')!.events.map((e) => e.position)).toEqual([1]);
  });

  it('moves the checkpoint only over the prefix applied in every lane', () => {
    const b = backlog();
    b.take(log('ab-ab'), Number.MAX_SAFE_INTEGER);
    const [first] = b.round(100).filter((s) => s.lane === 'b');
    // b's events (2, 5) done: a's at 1 still holds the checkpoint back.
    expect(b.checkpointAfter(first)).toBe(0);
    b.applied(first, 0);
    expect(b.checkpoint).toBe(0);
    const [second] = b.round(100);
    expect(second.lane).toBe('a');
    expect(b.checkpointAfter(second)).toBe(5);
    b.applied(second, 5);
    expect(b.pending).toBe(0);
    expect(b.round(100)).toEqual([]);
  });

  it("after a restart, skips what a lane applied past the checkpoint, and takes nothing twice or past `until`", () => {
    const b = backlog(1, [['b', 4]]);
    b.take(log('abab-ab'), 6);
    b.take(log('abab-ab'), 6);
    expect(b.round(100).map((s) => [s.lane, positions(s.events)])).toEqual([['a', [3, 6]]]);
    expect(b.readTo).toBe(6);
  });

  it('moves the checkpoint over events no lane reads', () => {
    const b = backlog();
    b.take(log('--'), Number.MAX_SAFE_INTEGER);
    expect(b.pending).toBe(0);
    expect(b.checkpoint).toBe(2);
  });
});

describe('lane backlog rounds with a budget for a lone lane', () => {
  it('gives a lane working alone up to the larger budget, and each of several lanes the smaller one', () => {
    const alone = backlog();
    alone.take(log('aaaa', [3, 3, 3, 3]), Number.MAX_SAFE_INTEGER);
    expect(alone.round(4, 9).map((s) => [s.lane, positions(s.events)])).toEqual([['a', [1, 2, 3]]]);
    expect(alone.round(4).map((s) => [s.lane, positions(s.events)])).toEqual([['a', [1]]]);
    const together = backlog();
    together.take(log('aabbba', [3, 3, 2, 2, 2, 3]), Number.MAX_SAFE_INTEGER);
    expect(together.round(4, 100).map((s) => [s.lane, positions(s.events)])).toEqual([
      ['b', [3, 4]],
      ['a', [1]],
    ]);
    expect(together.round(6, 100).map((s) => [s.lane, positions(s.events)])).toEqual([
      ['b', [3, 4, 5]],
      ['a', [1, 2]],
    ]);
    // A first event past either budget still makes a slice of one.
    const heavy = backlog();
    heavy.take(log('ab', [50, 60]), Number.MAX_SAFE_INTEGER);
    expect(heavy.round(4, 10).map((s) => [s.lane, positions(s.events)])).toEqual([
      ['a', [1]],
      ['b', [2]],
    ]);
  });
});

describe('lane backlog bookkeeping', () => {
  it('counts as pending only the events not applied yet, also those held behind another lane', () => {
    const b = backlog();
    b.take(log('aab'), Number.MAX_SAFE_INTEGER);
    expect(b.pending).toBe(3);
    const [slice] = b.round(100).filter((s) => s.lane === 'b');
    b.applied(slice, 0);
    expect(b.pending).toBe(2);
  });

  it('orders lanes of equal work oldest first', () => {
    const b = backlog();
    b.take(log('abc'), Number.MAX_SAFE_INTEGER);
    expect(b.round(100).map((s) => s.lane)).toEqual(['a', 'b', 'c']);
  });
});
