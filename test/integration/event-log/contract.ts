import { describe, expect, it } from 'vitest';
import { firstValueFrom, take, toArray } from 'rxjs';
import type { EventLog } from '../../../src/store/event-log';
import { WrongExpectedRevisionError } from '../../../src/store/event-log';
import { CHAIN_START, chainHash, contentOf } from '../../../src/store/hash-chain';
import { auditorHeadHash } from '../../support/auditor-chain';

const ctx = { actor: { type: 'system' as const }, projectId: 7, correlationId: 'corr-1', causationId: null };
const ev = (n: number) => ({ type: 'Tested', data: { n } });

/** What a contract test may fix of a fresh log: its clock (recordedAt), for histories that must hash alike everywhere. */
export interface OpenOptions {
  now?: () => Date;
}

/** One history, fixed to the byte (ids, clock, contexts): every adapter must give it one head hash. */
const FIXED_TIME = '2026-01-02T03:04:05.678Z';
const fixedHistory = [
  { stream: 'featureflag-1-new-checkout', events: [{ type: 'FlagCreated', data: { key: 'new-checkout', rollout: 25, tags: ['a', 'ü'] }, eventId: '00000000-0000-4000-8000-000000000001', schemaVersion: 2 }], context: { actor: { type: 'user' as const, id: 3, keyId: 'k1' }, projectId: 1, correlationId: 'req-1', causationId: null } },
  {
    stream: 'ingest-1',
    events: [
      { type: 'EventsCaptured', data: { events: [{ event: '$pageview', props: { url: 'https://e.com/?q="x"\n', n: 1.5e-7, big: 1e21, emoji: '😀', ctl: '\u0001\u2028' } }] }, eventId: '00000000-0000-4000-8000-000000000002' },
      { type: 'EventsCaptured', data: { events: [] }, eventId: 'not-a-uuid "quoted"' },
    ],
    context: { actor: { type: 'project_key' as const, projectId: 1 }, projectId: 1, correlationId: null, causationId: 'cause-9' },
  },
  { stream: 'featureflag-1-new-checkout', events: [{ type: 'FlagUpdated', data: { rollout: 50, nested: { z: null, a: [true, false, {}] } }, eventId: '00000000-0000-4000-8000-000000000003' }], context: { actor: { type: 'system' as const }, projectId: null } },
];

/**
 * The event-log contract every adapter must pass. `open()` returns a fresh, empty log; `reopen`, when
 * given, opens a second handle on the same storage (another process's view).
 */
export function eventLogContract(name: string, open: (options?: OpenOptions) => Promise<{ log: EventLog; reopen?: () => Promise<EventLog> }>) {
  describe(`event log contract: ${name}`, () => {
    it('starts empty', async () => {
      const { log } = await open();
      expect(await log.head()).toBe(0);
      expect(await log.readAll()).toEqual([]);
      expect(await log.readStream('nothing-here')).toEqual([]);
      await log.close();
    });

    it('appends atomically with increasing positions, dense revisions, and full metadata', async () => {
      const { log } = await open();
      const r1 = await log.append('s-1', [ev(1), ev(2), ev(3)], { expectedRevision: 'no_stream', context: ctx });
      expect(r1.nextExpectedRevision).toBe(2);
      const r2 = await log.append('s-2', [ev(4)], { expectedRevision: 'no_stream', context: ctx });
      const all = await log.readAll();
      expect(all.map((e) => [e.streamId, e.revision])).toEqual([
        ['s-1', 0],
        ['s-1', 1],
        ['s-1', 2],
        ['s-2', 0],
      ]);
      // Positions are integers above 0, increasing in commit order; density is not promised.
      const positions = all.map((e) => e.position);
      expect(positions.every((p) => Number.isInteger(p) && p > 0)).toBe(true);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(new Set(positions).size).toBe(4);
      expect([r1.firstPosition, r1.lastPosition, r2.firstPosition, r2.lastPosition]).toEqual([positions[0], positions[2], positions[3], positions[3]]);
      const e = all[0];
      expect(e.type).toBe('Tested');
      expect(e.data).toEqual({ n: 1 });
      expect(e.schemaVersion).toBe(1);
      expect(e.metadata.eventId).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Date(e.metadata.recordedAt).toISOString()).toBe(e.metadata.recordedAt);
      expect(e.metadata.projectId).toBe(7);
      expect(e.metadata.actor).toEqual({ type: 'system' });
      expect(e.metadata.correlationId).toBe('corr-1');
      expect(e.metadata.causationId).toBeNull();
      expect(new Set(all.map((x) => x.metadata.eventId)).size).toBe(4);
      expect(await log.head()).toBe(r2.lastPosition);
      await log.close();
    });

    it('round-trips data exactly: key order, unicode, numbers, nesting', async () => {
      const { log } = await open();
      const data = { z: 1, a: [1.5, -0, 1e21, null, true], 'ü\u2028': { nested: 'é😀\u0000', empty: {} }, s: '' };
      await log.append('exact', [{ type: 'Tested', data }], { context: { ...ctx, projectId: null, causationId: 'c-1' } });
      const [e] = await log.readAll();
      expect(JSON.stringify(e.data)).toBe(JSON.stringify(data));
      expect(e.metadata.projectId).toBeNull();
      expect(e.metadata.causationId).toBe('c-1');
      await log.close();
    });

    it('keeps a given eventId and schemaVersion', async () => {
      const { log } = await open();
      const id = '0190a3c4-0000-7000-8000-000000000001';
      await log.append('s', [{ type: 'Tested', data: {}, eventId: id, schemaVersion: 3 }], { context: ctx });
      const [e] = await log.readStream('s');
      expect(e.metadata.eventId).toBe(id);
      expect(e.schemaVersion).toBe(3);
      await log.close();
    });

    it('enforces every kind of expected revision with a typed conflict', async () => {
      const { log } = await open();
      const conflict = (p: Promise<unknown>) => expect(p).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await conflict(log.append('s', [ev(1)], { expectedRevision: 'stream_exists', context: ctx }));
      await conflict(log.append('s', [ev(1)], { expectedRevision: 0, context: ctx }));
      await log.append('s', [ev(1)], { expectedRevision: 'no_stream', context: ctx });
      await conflict(log.append('s', [ev(2)], { expectedRevision: 'no_stream', context: ctx }));
      await conflict(log.append('s', [ev(2)], { expectedRevision: 1, context: ctx }));
      await log.append('s', [ev(2)], { expectedRevision: 0, context: ctx });
      await log.append('s', [ev(3)], { expectedRevision: 'stream_exists', context: ctx });
      await log.append('s', [ev(4)], { expectedRevision: 'any', context: ctx });
      const err = await log.append('s', [ev(5)], { expectedRevision: 1, context: ctx }).catch((e) => e);
      expect(err).toMatchObject({ streamId: 's', expected: 1, actual: 3 });
      // A refused append writes nothing.
      expect((await log.readStream('s')).map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3, 4]);
      expect(await log.head()).toBe((await log.readAll()).at(-1)!.position);
      await log.close();
    });

    it('lets exactly one of two concurrent writers at the same revision win', async () => {
      const { log } = await open();
      await log.append('race', [ev(0)], { context: ctx });
      const results = await Promise.allSettled(
        [1, 2].map((n) => log.append('race', [ev(n)], { expectedRevision: 0, context: ctx })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
      await log.close();
    });

    it('reads a stream from a revision and the log from a position, bounded', async () => {
      const { log } = await open();
      for (let i = 0; i < 10; i++) await log.append(i % 2 ? 'odd' : 'even', [ev(i)], { context: ctx });
      expect((await log.readStream('odd', { fromRevision: 2 })).map((e) => e.revision)).toEqual([2, 3, 4]);
      expect((await log.readStream('odd', { fromRevision: 1, maxCount: 2 })).map((e) => e.revision)).toEqual([1, 2]);
      const p = (await log.readAll()).map((e) => e.position);
      // Upper bounds, for a stream as it stood: by revision, by global position (of any stream), both.
      expect((await log.readStream('odd', { toRevision: 2 })).map((e) => e.revision)).toEqual([0, 1, 2]);
      expect((await log.readStream('odd', { fromRevision: 1, toRevision: 3 })).map((e) => e.revision)).toEqual([1, 2, 3]);
      expect((await log.readStream('odd', { fromRevision: 1, toRevision: 3, maxCount: 1 })).map((e) => e.revision)).toEqual([1]);
      expect(await log.readStream('odd', { fromRevision: 3, toRevision: 2 })).toEqual([]);
      // p[6] is an event of 'even' (the 7th): 'odd' then held the events at p[1], p[3], p[5].
      expect((await log.readStream('odd', { toPosition: p[6] })).map((e) => e.position)).toEqual([p[1], p[3], p[5]]);
      expect((await log.readStream('odd', { toPosition: p[5] })).map((e) => e.revision)).toEqual([0, 1, 2]);
      expect(await log.readStream('odd', { toPosition: p[0] })).toEqual([]);
      expect((await log.readStream('odd', { toPosition: p[9], toRevision: 1 })).map((e) => e.revision)).toEqual([0, 1]);
      expect((await log.readStream('odd', { fromRevision: 2, toPosition: p[7] })).map((e) => e.revision)).toEqual([2, 3]);
      expect(await log.readStream('nothing-here', { toPosition: p[9], toRevision: 5 })).toEqual([]);
      // Reads are after the position a reader saw last: positions are compared, never computed.
      expect((await log.readAll({ afterPosition: p[2], maxCount: 3 })).map((e) => e.position)).toEqual(p.slice(3, 6));
      expect((await log.readAll({ afterPosition: p[6], toPosition: p[8] })).map((e) => e.position)).toEqual([p[7], p[8]]);
      expect((await log.readAll({ afterPosition: p[4] })).map((e) => e.position)).toEqual(p.slice(5));
      expect(await log.readAll({ afterPosition: p[9] })).toEqual([]);
      // 0 is below every position: the start, as no position at all.
      expect((await log.readAll({ afterPosition: 0, maxCount: 2 })).map((e) => e.position)).toEqual(p.slice(0, 2));
      expect((await log.readAll({ maxCount: 2 })).map((e) => e.position)).toEqual(p.slice(0, 2));
      // Page by page from the last position seen, as the runtime resumes.
      const paged: number[] = [];
      for (let after = 0; ; ) {
        const page = await log.readAll({ afterPosition: after, maxCount: 3 });
        if (page.length === 0) break;
        paged.push(...page.map((e) => e.position));
        after = page[page.length - 1].position;
      }
      expect(paged).toEqual(p);
      await log.close();
    });

    it('bounds reads by data size, never below one event, and batches of a subscription too', async () => {
      const { log } = await open();
      // Ten events of ~10 KB of data each, then one of ~50 KB.
      const big = (n: number, size: number) => ({ type: 'Tested', data: { n, pad: 'x'.repeat(size) } });
      for (let i = 1; i <= 10; i++) await log.append('sized', [big(i, 10_000)], { context: ctx });
      await log.append('sized', [big(11, 50_000)], { context: ctx });
      // p[k] is the position of the k-th event; p[0] = 0, below every position.
      const p = [0, ...(await log.readAll()).map((e) => e.position)];
      const positions = async (o: Parameters<EventLog['readAll']>[0]) => (await log.readAll(o)).map((e) => e.position);
      expect(await positions({ afterPosition: p[0], maxBytes: 35_000 })).toEqual([p[1], p[2], p[3]]);
      expect(await positions({ afterPosition: p[3], maxCount: 2, maxBytes: 35_000 })).toEqual([p[4], p[5]]);
      expect(await positions({ afterPosition: p[8], maxBytes: 1_000_000 })).toEqual([p[9], p[10], p[11]]);
      // An event larger than the bound still comes back alone, so a reader always advances.
      expect(await positions({ afterPosition: p[10], maxBytes: 100 })).toEqual([p[11]]);
      expect(await positions({ afterPosition: p[0], maxBytes: 1 })).toEqual([p[1]]);
      expect(await positions({ afterPosition: p[9], toPosition: p[10], maxBytes: 1 })).toEqual([p[10]]);
      expect(await positions({ afterPosition: p[0], toPosition: p[2], maxBytes: 1_000_000 })).toEqual([p[1], p[2]]);
      expect(await positions({ afterPosition: p[3], toPosition: p[3], maxBytes: 1 })).toEqual([]);
      expect(await positions({ afterPosition: p[11], maxBytes: 1 })).toEqual([]);

      const batches = await firstValueFrom(log.subscribeBatches({ afterPosition: p[0], batchSize: 100, maxBytes: 25_000 }).pipe(take(6), toArray()));
      expect(batches.map((b) => b.map((e) => e.position))).toEqual([[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11]].map((b) => b.map((k) => p[k])));
      await log.close();
    });

    it('subscribes: catch-up first, then live, in order, without gaps or repeats', async () => {
      const { log } = await open();
      for (let i = 1; i <= 25; i++) await log.append('a', [ev(i)], { context: ctx });
      const after10 = (await log.readAll())[9].position;
      const received = firstValueFrom(log.subscribe({ afterPosition: after10, batchSize: 4 }).pipe(take(30), toArray()));
      for (let i = 26; i <= 40; i++) await log.append('b', [ev(i)], { context: ctx });
      const got = await received;
      expect(got.map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: 30 }, (_, i) => i + 11));
      expect(got.map((e) => e.position)).toEqual((await log.readAll()).slice(10).map((e) => e.position));
      await log.close();
    });

    it('delivers live events appended after a quiet period', async () => {
      const { log } = await open();
      const received = firstValueFrom(log.subscribe({}).pipe(take(3), toArray()));
      await new Promise((r) => setTimeout(r, 150));
      await log.append('late', [ev(1), ev(2), ev(3)], { context: ctx });
      expect((await received).map((e) => e.revision)).toEqual([0, 1, 2]);
      await log.close();
    });

    it('answers a repeated idempotency key with the first append\'s result, appending nothing', async () => {
      const { log } = await open();
      await log.append('k', [ev(0)], { context: ctx });
      const first = await log.append('k', [ev(1), ev(2)], { context: ctx, idempotencyKey: 'msg-1' });
      expect(first.duplicate).toBeFalsy();
      await log.append('other', [ev(3)], { context: ctx, idempotencyKey: 'msg-2' });
      // Whatever the repeat carries (other events, a revision that would now conflict), it is the first append again.
      const again = await log.append('k', [ev(9)], { context: ctx, idempotencyKey: 'msg-1', expectedRevision: 'no_stream' });
      expect(again).toEqual({ ...first, duplicate: true });
      const keyed = (await log.readStream('k')).map((e) => (e.data as { n: number }).n);
      expect(keyed).toEqual([0, 1, 2]);
      expect((await log.readAll()).map((e) => (e.data as { n: number }).n)).toEqual([0, 1, 2, 3]);
      // A new key appends.
      const next = await log.append('k', [ev(4)], { context: ctx, idempotencyKey: 'msg-3', expectedRevision: 2 });
      expect(next.nextExpectedRevision).toBe(3);
      expect(next.duplicate).toBeFalsy();
      await log.close();
    });

    it('records no key for a refused append, and lets one of two concurrent appends with one key append', async () => {
      const { log } = await open();
      await expect(log.append('c', [ev(1)], { context: ctx, idempotencyKey: 'k-1', expectedRevision: 5 })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      const ok = await log.append('c', [ev(1)], { context: ctx, idempotencyKey: 'k-1', expectedRevision: 'no_stream' });
      expect(ok.duplicate).toBeFalsy();
      const results = await Promise.all([1, 2, 3].map((n) => log.append('c', [ev(10 + n)], { context: ctx, idempotencyKey: 'k-2' })));
      expect((await log.readStream('c')).length).toBe(2);
      expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
      const winner = results.find((r) => !r.duplicate)!;
      for (const r of results) expect({ ...r, duplicate: undefined }).toEqual({ ...winner, duplicate: undefined });
      await expect(log.append('c', [ev(1)], { context: ctx, idempotencyKey: '' })).rejects.toThrow(/idempotency key/);
      await log.close();
    });

    it('sees appends made through another handle on the same storage', async () => {
      const { log, reopen } = await open();
      if (!reopen) return;
      const other = await reopen();
      const received = firstValueFrom(log.subscribe({}).pipe(take(2), toArray()));
      await other.append('x', [ev(1)], { expectedRevision: 'no_stream', context: ctx });
      await expect(log.append('x', [ev(2)], { expectedRevision: 'no_stream', context: ctx })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await log.append('x', [ev(2)], { expectedRevision: 0, context: ctx, idempotencyKey: 'shared' });
      // Another handle (another process) sees the key.
      expect((await other.append('x', [ev(3)], { context: ctx, idempotencyKey: 'shared' })).duplicate).toBe(true);
      expect((await received).map((e) => [e.revision, e.position])).toEqual((await other.readAll()).map((e) => [e.revision, e.position]));
      await other.close();
      await log.close();
    });

    it('chains every record onto its predecessor in log order; the chain head is the last record', async () => {
      const { log } = await open();
      expect(await log.chainHead()).toEqual({ position: 0, hash: null });
      await log.append('c-1', [ev(1), ev(2)], { context: ctx });
      await log.append('c-2', [{ type: 'Other', data: { s: 'é' }, schemaVersion: 4 }], { context: { actor: { type: 'cli' }, projectId: null } });
      await log.append('c-1', [ev(3)], { expectedRevision: 1, context: ctx });
      const all = await log.readAll();
      let prev = CHAIN_START;
      for (const e of all) {
        expect(e.hash, `hash of ${e.streamId}/${e.revision}`).toMatch(/^[0-9a-f]{64}$/);
        expect(e.hash).toBe(chainHash(prev, contentOf(e)));
        prev = e.hash!;
      }
      expect(new Set(all.map((e) => e.hash)).size).toBe(4);
      expect(await log.chainHead()).toEqual({ position: all[3].position, hash: all[3].hash });
      // A reader resuming after a position gets the same hashes as one reading from the start.
      expect((await log.readAll({ afterPosition: all[1].position })).map((e) => e.hash)).toEqual(all.slice(2).map((e) => e.hash));
      await log.close();
    });

    it('gives a fixed history the head hash an auditor computes from it, whatever the engine', async () => {
      const { log } = await open({ now: () => new Date(FIXED_TIME) });
      for (const step of fixedHistory) await log.append(step.stream, step.events, { context: step.context });
      // Computed from the history as written, by the auditor's own script (docs/auditing.md), not from what the log read back.
      const expected = auditorHeadHash(
        fixedHistory.flatMap((step) =>
          step.events.map((e) => ({ streamId: step.stream, type: e.type, schemaVersion: 'schemaVersion' in e ? e.schemaVersion : 1, data: e.data, eventId: e.eventId, context: step.context })),
        ),
        FIXED_TIME,
      );
      expect((await log.chainHead()).hash).toBe(expected);
      expect((await log.readAll()).at(-1)!.hash).toBe(expected);
      await log.close();
    });
  });
}
