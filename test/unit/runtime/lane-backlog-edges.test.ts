// Lane backlog edges found untested by mutation testing (docs/mutation.md): the budget boundary,
// ties, a checkpoint that never moves back, and the lane positions kept with the checkpoint.
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import { LaneBacklog, type LaneKey } from '../../../src/runtime/lane-backlog';
import { laneData, laneLog } from './lane-events';

const log = laneLog;
const rules = {
  laneOf: (event: RecordedEvent) => laneData(event).lane,
  partsOf: (event: RecordedEvent) => laneData(event).parts,
};
const positions = (events: readonly RecordedEvent[]) => events.map((e) => e.position);
const ALL = Number.MAX_SAFE_INTEGER;

describe('lane backlog edges', () => {
  it('starts reading after its checkpoint', () => {
    expect(new LaneBacklog(3, new Map(), rules).readTo).toBe(3);
  });

  it('a slice takes events up to exactly the budget', () => {
    const b = new LaneBacklog(0, new Map(), rules);
    b.take(log('aaa', [2, 3, 1]), ALL);
    expect(positions(b.round(5)[0].events)).toEqual([1, 2]);
  });

  it('lanes with equal work go oldest first', () => {
    const b = new LaneBacklog(0, new Map(), rules);
    b.take(log('abc'), ALL);
    expect(b.round(100).map((s) => s.lane)).toEqual(['a', 'b', 'c']);
  });

  it('never moves the checkpoint back, and keeps lane positions only past it', () => {
    const lanes = new Map<LaneKey, number>();
    const b = new LaneBacklog(0, lanes, rules);
    b.take(log('ab'), ALL);
    const [a, bSlice] = [b.round(100).find((s) => s.lane === 'a')!, b.round(100).find((s) => s.lane === 'b')!];
    b.applied(bSlice, b.checkpointAfter(bSlice));
    expect(b.checkpoint).toBe(0);
    expect([...lanes]).toEqual([['b', 2]]);
    b.applied(a, b.checkpointAfter(a));
    expect(b.checkpoint).toBe(2);
    expect([...lanes]).toEqual([]);

    const later = new LaneBacklog(5, new Map(), rules);
    later.take([...log('xxxxxab')], ALL);
    const slice = later.round(100).find((s) => s.lane === 'b')!;
    later.applied(slice, 3);
    expect(later.checkpoint).toBe(5);
  });
});
