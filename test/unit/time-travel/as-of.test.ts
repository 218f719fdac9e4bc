import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/errors';
import { parseAsOf, within } from '../../../src/time-travel';

describe('as_of', () => {
  it('reads a position, a zoned time, a time without zone (UTC) and a date (midnight UTC)', () => {
    expect(parseAsOf('position:1042')).toEqual({ position: 1042 });
    expect(parseAsOf('position:0')).toEqual({ position: 0 });
    expect(parseAsOf('2026-01-31T12:00:00Z')).toEqual({ at: '2026-01-31T12:00:00.000Z' });
    expect(parseAsOf('2026-01-31T14:00:00.250+02:00')).toEqual({ at: '2026-01-31T12:00:00.250Z' });
    expect(parseAsOf('2026-01-31T12:00')).toEqual({ at: '2026-01-31T12:00:00.000Z' });
    expect(parseAsOf('2026-01-31 12:00:00')).toEqual({ at: '2026-01-31T12:00:00.000Z' });
    expect(parseAsOf('2026-01-31')).toEqual({ at: '2026-01-31T00:00:00.000Z' });
  });

  it('refuses anything else as a validation error on as_of', () => {
    for (const bad of ['', 'now', 'position:', 'position:-3', 'position:1e3', 'Position:5', '2026-02-30T00:00:00Z', '2026-1-5', '1700000000']) {
      const err = (() => {
        try {
          parseAsOf(bad);
        } catch (e) {
          return e;
        }
      })();
      expect(err, bad).toBeInstanceOf(DomainError);
      expect(err).toMatchObject({ kind: 'validation', attr: 'as_of' });
    }
  });

  it('bounds an event by position (inclusive) or by its recorded time (inclusive)', () => {
    const event = { position: 10, metadata: { recordedAt: '2026-01-31T12:00:00.000Z' } };
    expect(within({ position: 10 }, event)).toBe(true);
    expect(within({ position: 9 }, event)).toBe(false);
    expect(within({ at: '2026-01-31T12:00:00.000Z' }, event)).toBe(true);
    expect(within({ at: '2026-01-31T11:59:59.999Z' }, event)).toBe(false);
  });
});
