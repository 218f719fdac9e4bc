import { describe, expect, it } from 'vitest';
import { blocksWithinBudget } from '../../../src/recordings';

describe('blocksWithinBudget', () => {
  const block = (bytes: number, count = 1) => ({ snapshot_bytes: bytes, snapshot_count: count });
  const budget = { bytes: 100, events: 10 };

  it('takes blocks from the first while their bytes and events stay within the budget', () => {
    expect(blocksWithinBudget([block(40), block(40), block(40)], budget)).toBe(2);
    expect(blocksWithinBudget([block(50), block(50)], budget)).toBe(2);
    expect(blocksWithinBudget([block(1, 6), block(1, 6)], budget)).toBe(1);
    expect(blocksWithinBudget([], budget)).toBe(0);
  });

  it('gives 0 for a first block past the budget alone (one stored before the stored limit existed)', () => {
    expect(blocksWithinBudget([block(101)], budget)).toBe(0);
  });
});
