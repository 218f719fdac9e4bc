import { describe, expect, it } from 'vitest';
import { fromMs, fromMsReference, toMs } from '../../../../src/adapters/clickhouse/time';

describe('ClickHouse times', () => {
  it('turns milliseconds into the ISO text toISOString writes, on every kind of day', () => {
    const edges = [
      0, 1, 999, 59_999, 3_599_999, 86_399_999, 86_400_000,
      Date.parse('1972-02-29T23:59:59.999Z'), Date.parse('2000-02-29T12:00:00.000Z'), Date.parse('2000-03-01T00:00:00.000Z'),
      Date.parse('2100-02-28T23:59:59.999Z'), Date.parse('2100-03-01T00:00:00.000Z'), Date.parse('2024-12-31T23:59:59.999Z'),
      Date.parse('9999-12-31T23:59:59.999Z'),
    ];
    for (const ms of edges) {
      expect(fromMs(ms)).toBe(fromMsReference(ms));
      expect(fromMs(String(ms))).toBe(new Date(ms).toISOString());
    }
    // Pseudo-random times over the whole range, in and out of order (the date part is memoised).
    let x = 12_345;
    for (let i = 0; i < 20_000; i++) {
      x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
      const ms = Math.floor((x / 2_147_483_648) * 253_402_300_800_000);
      expect(fromMs(ms)).toBe(new Date(ms).toISOString());
      expect(fromMs(ms + 1)).toBe(new Date(ms + 1).toISOString());
    }
  });

  it('hands times outside 1970–9999, and fractions of a millisecond, to the reference', () => {
    for (const ms of [-1, -86_400_001, Date.parse('0001-01-01T00:00:00.000Z'), 253_402_300_800_000, 8.64e15, 1.5, 1_705_312_800_123.7]) {
      expect(fromMs(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('reads an ISO text back as its milliseconds, and refuses what is no time', () => {
    expect(toMs('2024-01-15T10:00:00.123Z')).toBe(1_705_312_800_123);
    expect(fromMs(toMs('2024-01-15T10:00:00.123Z'))).toBe('2024-01-15T10:00:00.123Z');
    expect(() => toMs('yesterday')).toThrow(new RangeError('not a timestamp: yesterday'));
  });
});
