import { join } from 'node:path';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { defineEvent } from '../../../streams';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import type { Decider } from '../../../src/runtime/decider';
import { appendAndWait, handleCommandAndWait } from '../../../src/runtime/read-your-writes';
import { tempDir } from '../../support/temp-dir';

const NotedEvent = defineEvent('Noted', z.object({ n: z.number() }));
type Noted = { type: 'Noted'; data: { n: number } };
/** Appends one event per `note`; a `skip` decides nothing. */
const decider: Decider<{ note: boolean }, Noted, number> = {
  events: [NotedEvent],
  initialState: () => 0,
  evolve: (state) => state + 1,
  decide: (command, state) => (command.note ? [{ type: 'Noted', data: { n: state } }] : []),
};

const opened: SqliteEventLog[] = [];
afterEach(async () => {
  for (const l of opened.splice(0)) await l.close();
});

/** A log holding 6 events of another stream, so the next append lands at position 7; then 2 more, so its head is 9 when the test appends nothing. */
const log = (head: 6 | 9 = 6) => {
  const l = new SqliteEventLog(join(tempDir('ryw-'), 'log.sqlite'));
  opened.push(l);
  for (let i = 0; i < head; i++) l.appendSync('other', [{ type: 'Noted', data: { n: i } }], { context: { actor: { type: 'system' } } });
  const appended = async () => (await l.readStream('s-1')).length;
  return { log: l, appended };
};

const waits = () => {
  const seen: number[] = [];
  return { seen, waitFor: async (position: number) => void seen.push(position) };
};

describe('read-your-writes after a command', () => {
  it('waits for the read models to reach the last appended position, and answers the handled command', async () => {
    const { log: l, appended } = log();
    const w = waits();
    const handled = await handleCommandAndWait(l, 's-1', decider, { note: true }, { actor: { type: 'system' } }, { waitFor: w.waitFor });
    expect(await appended()).toBe(1);
    expect(w.seen).toEqual([7]);
    expect(handled.result?.lastPosition).toBe(7);
    expect(handled.state).toBe(1);
  });

  it('waits for nothing when nothing was appended, or for the head when asked to', async () => {
    const { log: l } = log(9);
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
    const { log: l, appended } = log();
    const failing = async () => {
      throw new Error('projection stopped');
    };
    await expect(handleCommandAndWait(l, 's-1', decider, { note: true }, { actor: { type: 'system' } }, { waitFor: failing })).rejects.toThrow('projection stopped');
    expect(await appended()).toBe(1);
  });
});
