import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEvent } from '../../../streams';
import { handleCommand, ConcurrencyConflictError } from '../../../src/runtime/command-handler';
import type { Decider } from '../../../src/runtime/decider';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { validationError } from '../../../src/errors';
import { tempDir } from '../../support/temp-dir';
import { spec } from '../../support/decider-spec';

type Event = { type: 'Deposited'; data: { amount: number } };
type Command = { type: 'Deposit'; amount: number; max: number };
const Deposited = defineEvent('Deposited', z.object({ amount: z.number() }));
const counter: Decider<Command, Event, { total: number }> = {
  events: [Deposited],
  initialState: () => ({ total: 0 }),
  evolve: (s, e) => ({ total: s.total + e.data.amount }),
  decide: (c, s) => {
    if (s.total + c.amount > c.max) throw validationError(`over ${c.max}`, 'amount');
    return [{ type: 'Deposited', data: { amount: c.amount } }];
  },
};

const dir = tempDir('cmd-');
const ctx = { actor: { type: 'system' as const } };

describe('decider spec helpers', () => {
  it('given/when/then', () => {
    spec(counter).given([{ type: 'Deposited', data: { amount: 5 } }]).when({ type: 'Deposit', amount: 3, max: 10 }).then([
      { type: 'Deposited', data: { amount: 3 } },
    ]);
    spec(counter).given([{ type: 'Deposited', data: { amount: 9 } }]).when({ type: 'Deposit', amount: 3, max: 10 }).thenThrows('validation', /over 10/);
  });
});

describe('command handler', () => {
  it('reads, folds, decides and appends at the read revision', async () => {
    const log = new SqliteEventLog(join(dir, 'a.sqlite'));
    const r1 = await handleCommand(log, 'acct-1', counter, { type: 'Deposit', amount: 4, max: 10 }, ctx);
    const r2 = await handleCommand(log, 'acct-1', counter, { type: 'Deposit', amount: 5, max: 10 }, ctx);
    expect(r1.result?.nextExpectedRevision).toBe(0);
    expect(r2.state).toEqual({ total: 9 });
    await expect(handleCommand(log, 'acct-1', counter, { type: 'Deposit', amount: 5, max: 10 }, ctx)).rejects.toThrow(/over 10/);
    expect(await log.head()).toBe(2);
    await log.close();
  });

  it('retries on a conflict and re-decides on the new state, so invariants hold under concurrency', async () => {
    const log = new SqliteEventLog(join(dir, 'b.sqlite'));
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, () => handleCommand(log, 'acct-2', counter, { type: 'Deposit', amount: 2, max: 10 }, ctx, { maxAttempts: 20 })),
    );
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(5);
    const events = await log.readStream('acct-2');
    expect(events.reduce((s, e) => s + (e.data as { amount: number }).amount, 0)).toBe(10);
    await log.close();
  });

  it('refuses to fold an event its decider does not declare, rather than guess at it', async () => {
    const log = new SqliteEventLog(join(dir, 'd.sqlite'));
    await log.append('acct-4', [{ type: 'Withdrawn', data: { amount: 1 } }], { context: ctx });
    await expect(handleCommand(log, 'acct-4', counter, { type: 'Deposit', amount: 1, max: 10 }, ctx)).rejects.toThrow(/Withdrawn event, which its decider does not fold/);
    expect(await log.head()).toBe(1);
    await log.close();
  });

  it('gives up with a ConcurrencyConflictError after its bounded attempts', async () => {
    const inner = new SqliteEventLog(join(dir, 'c.sqlite'));
    // A log whose stream always moves between read and append: every attempt conflicts.
    const racing = Object.create(inner) as SqliteEventLog;
    racing.readStream = async (s) => {
      const events = await inner.readStream(s);
      await inner.append(s, [{ type: 'Deposited', data: { amount: 0 } }], { context: ctx });
      return events;
    };
    await expect(handleCommand(racing, 'acct-3', counter, { type: 'Deposit', amount: 1, max: 10 }, ctx, { maxAttempts: 3 })).rejects.toBeInstanceOf(
      ConcurrencyConflictError,
    );
    await inner.close();
  });
});
