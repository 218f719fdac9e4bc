import { describe, expect, it } from 'vitest';
import { Int64Column } from '../../../src/exports/formats/int64-column';
import { isoToMicros } from '../../../src/exports/formats/timestamps';

describe('isoToMicros', () => {
  it('keeps sub-millisecond digits and offsets', () => {
    expect(isoToMicros('2024-01-01T00:00:00Z')).toBe(1704067200000000);
    expect(isoToMicros('2024-01-01T00:00:00.123456Z')).toBe(1704067200123456);
    expect(isoToMicros('2024-01-01T00:00:00.1234Z')).toBe(1704067200123400);
    expect(isoToMicros('2024-01-01T02:00:00.5+02:00')).toBe(1704067200500000);
    expect(isoToMicros('1969-12-31T23:59:59.999500Z')).toBe(-500);
    expect(isoToMicros('not a date')).toBeNull();
  });
});

describe('Int64Column', () => {
  it('stores large, negative and null values without BigInt per row', () => {
    const col = new Int64Column();
    const values = [0, 1, -1, 2 ** 40 + 7, -(2 ** 45) - 3, null, 1704067200123456];
    for (let i = 0; i < 1000; i++) for (const v of values) col.push(v);
    const taken = col.take();
    expect(taken.length).toBe(7000);
    expect(taken.nullCount).toBe(1000);
    for (let i = 0; i < 7; i++) {
      const v = values[i];
      const valid = ((taken.nullBitmap?.[i >> 3] ?? 0) >> (i & 7)) & 1;
      if (v === null) expect(valid).toBe(0);
      else expect([taken.values[i], valid]).toEqual([BigInt(v), 1]);
    }
    expect(col.length).toBe(0);
  });
});
