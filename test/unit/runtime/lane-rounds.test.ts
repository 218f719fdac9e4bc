import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import { LaneBacklog, type LaneSlice } from '../../../src/runtime/lane-backlog';
import { applyRound, UNNOTIFIED_SLICE_MS, type LaneRoundHost } from '../../../src/runtime/lane-rounds';
import { laneData, laneLog } from './lane-events';

/**
 * A round's orchestration (lane-rounds.ts) against a real backlog and a host that commits what it
 * is given: what the runner's transactions do is covered by runner-lanes.test.ts.
 */
const backlog = () =>
  new LaneBacklog(0, new Map(), { laneOf: (e) => (e.type === 'Folded' ? laneData(e).lane : null), partsOf: (e) => laneData(e).parts });

type SliceRun = (slice: LaneSlice, stop: (() => Promise<boolean>) | undefined) => Promise<number | void>;

/** A host committing each slice whole (or the first n events when `run` answers n). */
function hostOf(lanes: LaneBacklog, run: SliceRun = async () => undefined, over: Partial<LaneRoundHost> = {}) {
  let checkpoint = 0;
  const slices: { lane: string; positions: number[]; stopped: boolean }[] = [];
  const committed: [number, number[] | null][] = [];
  const written: number[] = [];
  const host: LaneRoundHost = {
    notified: true,
    logMoved: () => false,
    async applySlice(slice, stop) {
      slices.push({ lane: slice.lane, positions: slice.events.map((e) => e.position), stopped: stop !== undefined });
      const n = (await run(slice, stop)) ?? slice.events.length;
      const done = { lane: slice.lane, events: slice.events.slice(0, n) };
      return { checkpoint: lanes.checkpointAfter(done), done };
    },
    async writeCheckpoint(position) {
      written.push(position);
      return position;
    },
    checkpoint: () => checkpoint,
    committed(at: number, events: readonly RecordedEvent[] | null) {
      checkpoint = at;
      committed.push([at, events ? events.map((e) => e.position) : null]);
    },
    ...over,
  };
  return { host, slices, committed, written };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a round of a laned projection', () => {
  it('gives each lane with work one slice, the least work first, none of them stoppable, and records what each committed', async () => {
    const lanes = backlog();
    const { host, slices, committed, written } = hostOf(lanes);
    await applyRound(lanes, laneLog('aab-'), 4, host);
    expect(slices).toEqual([
      { lane: 'b', positions: [3], stopped: false },
      { lane: 'a', positions: [1, 2], stopped: false },
    ]);
    // b's slice leaves a's events before it unapplied; a's completes the prefix and the unread event 4.
    expect(committed).toEqual([
      [0, [3]],
      [4, [1, 2]],
    ]);
    expect(written).toEqual([]);
    expect(lanes.pending).toBe(0);
    expect(lanes.checkpoint).toBe(4);
    // The backlog knows the round was applied: the next round has nothing to give.
    await applyRound(lanes, [], 4, host);
    expect(slices).toHaveLength(2);
  });

  it('takes no events past until', async () => {
    const lanes = backlog();
    const { host, slices } = hostOf(lanes);
    await applyRound(lanes, laneLog('aab'), 2, host);
    expect(slices).toEqual([{ lane: 'a', positions: [1, 2], stopped: true }]);
  });

  it('moves the checkpoint past events the projection does not read, with nothing to apply', async () => {
    const lanes = backlog();
    const { host, slices, committed, written } = hostOf(lanes);
    await applyRound(lanes, laneLog('--'), 2, host);
    expect(slices).toEqual([]);
    expect(written).toEqual([2]);
    expect(committed).toEqual([[2, null]]);
  });

  it('a slice cut short commits the part it applied; the rest comes in the next round', async () => {
    const lanes = backlog();
    let first = true;
    const { host, slices, committed } = hostOf(lanes, async () => (first ? ((first = false), 1) : undefined));
    await applyRound(lanes, laneLog('aaa'), 3, host);
    expect(committed).toEqual([[1, [1]]]);
    await applyRound(lanes, [], 3, host);
    expect(slices.map((s) => s.positions)).toEqual([[1, 2, 3], [2, 3]]);
    expect(committed).toEqual([
      [1, [1]],
      [3, [2, 3]],
    ]);
  });
});

describe("a lone lane's slice", () => {
  it('is asked to stop once the log has moved, after a turn of the event loop (an append notice comes as a message)', async () => {
    const lanes = backlog();
    let moved = false;
    const answers: boolean[] = [];
    const { host } = hostOf(
      lanes,
      async (_slice, stop) => {
        answers.push(await stop!());
        // Set by a task queued now: only a stop that lets the loop turn sees it.
        setImmediate(() => (moved = true));
        answers.push(await stop!());
      },
      { logMoved: () => moved },
    );
    await applyRound(lanes, laneLog('aa'), 2, host);
    expect(answers).toEqual([false, true]);
  });

  it(`without append notices, ends after ${UNNOTIFIED_SLICE_MS} ms; with them, only when the log moved`, async () => {
    let now = 1000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const answersOf = async (notified: boolean) => {
      const lanes = backlog();
      const answers: boolean[] = [];
      const { host } = hostOf(
        lanes,
        async (_slice, stop) => {
          for (const elapsed of [0, UNNOTIFIED_SLICE_MS, UNNOTIFIED_SLICE_MS + 1]) {
            now = 1000 + elapsed;
            answers.push(await stop!());
          }
        },
        { notified },
      );
      now = 1000;
      await applyRound(lanes, laneLog('aa'), 2, host);
      return answers;
    };
    expect(await answersOf(false)).toEqual([false, false, true]);
    expect(await answersOf(true)).toEqual([false, false, false]);
  });

  it('without append notices, still stops at once when the log is known to have moved', async () => {
    const lanes = backlog();
    let answer: boolean | undefined;
    const { host } = hostOf(
      lanes,
      async (_slice, stop) => {
        answer = await stop!();
      },
      { notified: false, logMoved: () => true },
    );
    await applyRound(lanes, laneLog('a'), 1, host);
    expect(answer).toBe(true);
  });
});
