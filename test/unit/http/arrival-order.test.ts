import { describe, expect, it } from 'vitest';
import { arrivalOrderQueue } from '../../../src/http/arrival-order';

describe('arrivalOrderQueue', () => {
  it('runs jobs in the order they were queued and hands each its own result', async () => {
    const inOrder = arrivalOrderQueue(3);
    const ran: number[] = [];
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6, 7].map((n) =>
        inOrder(() => {
          ran.push(n);
          return n * 10;
        }),
      ),
    );
    expect(ran).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(results).toEqual([10, 20, 30, 40, 50, 60, 70]);
  });

  it('runs at most a batch per event-loop turn, so other callbacks run between batches', async () => {
    const inOrder = arrivalOrderQueue(2);
    const log: string[] = [];
    const jobs = [1, 2, 3, 4, 5].map((n) => inOrder(() => log.push(`job ${n}`)));
    setImmediate(() => log.push('other callback'));
    await Promise.all(jobs);
    expect(log).toEqual(['job 1', 'job 2', 'other callback', 'job 3', 'job 4', 'job 5']);
  });

  it('lets the callers of a batch continue only after the whole batch ran (answers go out together)', async () => {
    const inOrder = arrivalOrderQueue(4);
    const log: string[] = [];
    await Promise.all(
      [1, 2, 3].map(async (n) => {
        await inOrder(() => log.push(`evaluate ${n}`));
        log.push(`answer ${n}`);
      }),
    );
    expect(log).toEqual(['evaluate 1', 'evaluate 2', 'evaluate 3', 'answer 1', 'answer 2', 'answer 3']);
  });

  it('rejects only the job that threw; the ones behind it still run', async () => {
    const inOrder = arrivalOrderQueue(1);
    const outcomes = await Promise.allSettled([
      inOrder(() => 'a'),
      inOrder(() => {
        throw new Error('bad body');
      }),
      inOrder(() => 'c'),
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual(['a', 'bad body', 'c']);
  });

  it('starts again after the queue ran empty', async () => {
    const inOrder = arrivalOrderQueue();
    expect(await inOrder(() => 1)).toBe(1);
    expect(await inOrder(() => 2)).toBe(2);
  });
});
