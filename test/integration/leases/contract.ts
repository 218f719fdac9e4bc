import { describe, expect, it } from 'vitest';
import { LeaseAbortedError, type Leases } from '../../../src/store/leases';

const settledWithin = async <T>(p: Promise<T>, ms: number): Promise<boolean> =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

/** The lease contract: one holder per name; the next waiter gets it on release; waiting can be aborted. */
export function leaseContract(name: string, open: () => Promise<{ a: Leases; b: Leases; close(): Promise<void> }>) {
  describe(`lease contract: ${name}`, () => {
    it('grants a name to one holder at a time, and the waiter on release', async () => {
      const { a, b, close } = await open();
      const first = await a.acquire('projections');
      const waiting = b.acquire('projections');
      expect(await settledWithin(waiting, 1200)).toBe(false);
      // Other names are independent.
      const other = await b.acquire('exports');
      await first.release();
      const second = await waiting;
      expect(second.name).toBe('projections');
      await second.release();
      await other.release();
      await close();
    });

    it('stops waiting when aborted', async () => {
      const { a, b, close } = await open();
      const held = await a.acquire('projections');
      const controller = new AbortController();
      const waiting = b.acquire('projections', { signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      await expect(waiting).rejects.toBeInstanceOf(LeaseAbortedError);
      await held.release();
      await close();
    });
  });
}
