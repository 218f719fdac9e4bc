import { describe, expect, it } from 'vitest';
import type { Decider } from '../../../src/runtime/decider';
import { appendAndWait, handleCommandAndWait } from '../../../src/runtime/read-your-writes';
import type { AppendResult, EventLog } from '../../../src/store/event-log';

type Noted = { type: 'Noted'; data: { n: number } };
/** Appends one event per `note`; a `skip` decides nothing. */
const decider: Decider<{ note: boolean }, Noted, number> = {
  events: [{ type: 'Noted' } as unknown as Decider<{ note: boolean }, Noted, number>['events'][number]],
  initialState: () => 0,
  evolve: (state) => state + 1,
  decide: (command, state) => (command.note ? [{ type: 'Noted', data: { n: state } }] : []),
};

/** A log whose stream is empty and whose next append lands at position 7; the head is 9. */
const log = () => {
  const appends: unknown[] = [];
  const fake = {
    readStream: async () => [],
    append: async (_stream: string, events: unknown[]) => {
      appends.push(...events);
      return { nextExpectedRevision: 0, firstPosition: 7, lastPosition: 7 } satisfies AppendResult;
    },
    head: async () => 9,
  };
  return { log: fake as unknown as EventLog, appends };
};

const waits = () => {
  const seen: number[] = [];
  return { seen, waitFor: async (position: number) => void seen.push(position) };
};

describe('read-your-writes after a command', () => {
  it('waits for the read models to reach the last appended position, and answers the handled command', async () => {
    const { log: l, appends } = log();
    const w = waits();
    const handled = await handleCommandAndWait(l, 's-1', decider, { note: true }, { actor: { type: 'system' } }, { waitFor: w.waitFor });
    expect(appends).toHaveLength(1);
    expect(w.seen).toEqual([7]);
    expect(handled.result?.lastPosition).toBe(7);
    expect(handled.state).toBe(1);
  });

  it('waits for nothing when nothing was appended, or for the head when asked to', async () => {
    const { log: l } = log();
    const w = waits();
    const handled = await handleCommandAndWait(l, 's-1', decider, { note: false }, { actor: { type: 'system' } }, { waitFor: w.waitFor });
    expect(handled.result).toBeNull();
    expect(w.seen).toEqual([]);
    await handleCommandAndWait(l, 's-1', decider, { note: false }, { actor: { type: 'system' } }, { waitFor: w.waitFor, nothingAppended: 'wait_for_head' });
    expect(w.seen).toEqual([9]);
  });

  it('a plain append: waits for its last position; nothing appended, nothing waited for', async () => {
    const w = waits();
    expect(await appendAndWait(async () => ({ nextExpectedRevision: 3, firstPosition: 4, lastPosition: 5 }), w.waitFor)).toMatchObject({ lastPosition: 5 });
    expect(await appendAndWait(async () => null, w.waitFor)).toBeNull();
    expect(w.seen).toEqual([5]);
  });

  it('a failed wait fails the command call (the append stays)', async () => {
    const { log: l, appends } = log();
    const failing = async () => {
      throw new Error('projection stopped');
    };
    await expect(handleCommandAndWait(l, 's-1', decider, { note: true }, { actor: { type: 'system' } }, { waitFor: failing })).rejects.toThrow('projection stopped');
    expect(appends).toHaveLength(1);
  });
});
