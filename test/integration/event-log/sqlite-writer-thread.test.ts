import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OFF_THREAD_APPEND_CHARS, SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { WrongExpectedRevisionError } from '../../../src/store/event-log';
import { tempDir } from '../../support/temp-dir';
import { CHAIN_START, chainHash, contentOf } from '../../../src/store/hash-chain';

/** A large prepared append (NewEvent.serialized) runs on the log's writer thread: still one atomic append, in order with the others. */
describe('SQLite log: large prepared appends on the writer thread', () => {
  const log = new SqliteEventLog(join(tempDir('log-writer-'), 'log.sqlite'), { pollIntervalMs: 20 });
  afterAll(() => log.close());
  const ctx = { context: { actor: { type: 'system' as const } } };
  const big = (i: number) => {
    const data = { i, pad: 'x'.repeat(OFF_THREAD_APPEND_CHARS / 2) };
    return { type: 'Noted', data, serialized: JSON.stringify(data) };
  };

  it('stores the rows as sent, and a concurrent small append waits for it', async () => {
    const seen: number[] = [];
    const sub = log.appends.subscribe((p) => seen.push(p));
    const large = log.append('s', [big(0), big(1), big(2)], ctx);
    const small = log.append('s', [{ type: 'Noted', data: { i: 3 } }], ctx);
    const [a, b] = await Promise.all([large, small]);
    sub.unsubscribe();
    expect(a.nextExpectedRevision).toBe(2);
    expect(b.firstPosition).toBeGreaterThan(a.lastPosition);
    expect(seen).toEqual([a.lastPosition, b.lastPosition]);
    const events = await log.readStream('s');
    expect(events.map((e) => (e.data as { i: number }).i)).toEqual([0, 1, 2, 3]);
    // One chain across both connections: the thread's records, then the small one on top of them.
    let prev = CHAIN_START;
    for (const e of await log.readAll()) {
      expect(e.hash).toBe(chainHash(prev, contentOf(e)));
      prev = e.hash!;
    }
    expect((await log.chainHead()).hash).toBe(prev);
  });

  it('refuses a wrong expected revision as the log connection does', async () => {
    await expect(log.append('s', [big(9)], { ...ctx, expectedRevision: 0 })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(await log.readStream('s')).toHaveLength(4);
  });

  it('records an idempotency key with a large append, and answers a repeat of it on either path', async () => {
    const first = await log.append('keyed', [big(0), big(1)], { ...ctx, idempotencyKey: 'large-1' });
    expect(first.duplicate).toBeFalsy();
    // The repeat is small (the log's own connection) then large (the thread): the same answer.
    expect(await log.append('keyed', [{ type: 'Noted', data: { i: 2 } }], { ...ctx, idempotencyKey: 'large-1' })).toEqual({ ...first, duplicate: true });
    expect(await log.append('keyed', [big(3)], { ...ctx, idempotencyKey: 'large-1' })).toEqual({ ...first, duplicate: true });
    expect(await log.readStream('keyed')).toHaveLength(2);
  });
});
