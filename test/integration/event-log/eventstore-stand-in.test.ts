import { describe, expect, it } from 'vitest';
import { EventStoreEventLog } from '../../../src/adapters/eventstore';
import { KurrentStandIn } from '../../support/kurrent-stand-in';
import { eventLogContract } from './contract';

// The adapter's own logic through the whole log contract, over an in-memory stand-in for the
// server (see test/support/kurrent-stand-in.ts for what it holds the adapter to, and what it
// cannot show); eventstore.test.ts runs the same contract against a real server.
for (const backwardsInclusive of [false, true]) {
  eventLogContract(`KurrentDB adapter over a stand-in server (backward reads ${backwardsInclusive ? 'include' : 'exclude'} their start)`, async (options) => {
    const server = new KurrentStandIn({ backwardsInclusive });
    const open = async () => EventStoreEventLog.over(server.client(), { pollIntervalMs: 20 });
    return { log: EventStoreEventLog.over(server.client(), { pollIntervalMs: 20, ...options }), reopen: open };
  });
}

// Positions past 2^52 with gaps of hundreds: only comparisons of positions hold up there (a
// product such as p * 10000 is past 2^53, and p + 1 is an offset the server refuses).
eventLogContract('KurrentDB adapter over a stand-in server whose log has grown to 2^52 bytes', async (options) => {
  const server = new KurrentStandIn({ olderBytes: 2n ** 52n });
  const open = async () => EventStoreEventLog.over(server.client(), { pollIntervalMs: 20 });
  return { log: EventStoreEventLog.over(server.client(), { pollIntervalMs: 20, ...options }), reopen: open };
});

eventLogContract('KurrentDB adapter over a stand-in server, one log among others (stream prefix)', async (options) => {
  const server = new KurrentStandIn();
  // Another log's streams on the same server, before and among this one's.
  const other = EventStoreEventLog.over(server.client(), { streamPrefix: 'other-' });
  await other.append('s', [{ type: 'Tested', data: { other: true } }], { context: { actor: { type: 'system' } } });
  const open = async () => EventStoreEventLog.over(server.client(), { streamPrefix: 'mine-', pollIntervalMs: 20 });
  return { log: EventStoreEventLog.over(server.client(), { streamPrefix: 'mine-', pollIntervalMs: 20, ...options }), reopen: open };
});

describe('KurrentDB adapter over a stand-in server: pages and positions', () => {
  it('reads past many pages of system records, and resumes after the position of each event without ever sending a mid-record offset', async () => {
    const server = new KurrentStandIn();
    const log = EventStoreEventLog.over(server.client());
    const ctx = { context: { actor: { type: 'system' as const } } };
    // 1,200 appends: with the $ce- links and $stats records, $all holds over 2,800 records.
    for (let i = 0; i < 1200; i++) await log.append(`s-${i % 7}`, [{ type: 'Tested', data: { i } }], ctx);
    const all = await log.readAll();
    expect(all.map((e) => (e.data as { i: number }).i)).toEqual(Array.from({ length: 1200 }, (_, i) => i));
    let after = 0;
    const resumed: number[] = [];
    for (;;) {
      const batch = await log.readAll({ afterPosition: after, maxCount: 173 });
      if (batch.length === 0) break;
      resumed.push(...batch.map((e) => e.position));
      after = batch.at(-1)!.position;
    }
    expect(resumed).toEqual(all.map((e) => e.position));
    expect(await log.head()).toBe(all.at(-1)!.position);
    // Positions are the records' offsets: increasing, far from dense.
    expect(all[1].position - all[0].position).toBeGreaterThan(2);
    await log.close();
  });

  it("wakes live subscriptions by the server's filtered subscription, not only by the poll", async () => {
    const server = new KurrentStandIn();
    // A one-minute poll: within this test only the live subscription's hint can deliver an event.
    const log = EventStoreEventLog.over(server.client(), { pollIntervalMs: 60_000 });
    const writer = EventStoreEventLog.over(server.client());
    const seen: number[] = [];
    let arrived = () => undefined as void;
    const sub = log.subscribe({}).subscribe((e) => {
      seen.push((e.data as { n: number }).n);
      arrived();
    });
    await log.listening();
    for (const n of [1, 2, 3]) {
      const got = new Promise<void>((resolve) => (arrived = () => seen.includes(n) && resolve()));
      // Let the subscription go idle first, so that no read already under way finds the event.
      await new Promise((r) => setTimeout(r, 50));
      await writer.append('s', [{ type: 'Tested', data: { n } }], { context: { actor: { type: 'system' } } });
      await got;
    }
    expect(seen).toEqual([1, 2, 3]);
    sub.unsubscribe();
    await Promise.all([log.close(), writer.close()]);
  }, 10_000);

  it('has head 0 on a server holding only system records and other logs', async () => {
    const server = new KurrentStandIn();
    const other = EventStoreEventLog.over(server.client(), { streamPrefix: 'other-' });
    for (let i = 0; i < 250; i++) await other.append('s', [{ type: 'Tested', data: { i } }], { context: { actor: { type: 'system' } } });
    const mine = EventStoreEventLog.over(server.client(), { streamPrefix: 'mine-' });
    expect(await mine.head()).toBe(0);
    expect(await mine.readAll()).toEqual([]);
    expect(await other.head()).toBeGreaterThan(0);
  });
});
