// Date parsing for the is_date_* operators (dates.ts): calendar steps, ISO fields and offsets.
import { describe, expect, it } from 'vitest';
import { parseIsoDate, parseRelativeDate } from '../../../src/flags';
import { parsePropertyDate } from '../../../src/flags/dates';

const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('relative dates', () => {
  it('months step back one at a time, clamping the day, across a year', () => {
    expect(iso(parseRelativeDate('2m', new Date('2023-03-31T10:00:00Z')))).toBe('2023-01-28T10:00:00.000Z');
    expect(iso(parseRelativeDate('-1m', new Date('2024-01-15T10:00:00Z')))).toBe('2023-12-15T10:00:00.000Z');
    expect(iso(parseRelativeDate('1m', new Date('2024-02-15T10:00:00Z')))).toBe('2024-01-15T10:00:00.000Z');
  });

  it('years back keep the time of day and clamp 29 February', () => {
    expect(iso(parseRelativeDate('-1y', new Date('2024-02-29T06:00:00Z')))).toBe('2023-02-28T06:00:00.000Z');
    expect(iso(parseRelativeDate('2y', new Date('2024-05-10T06:00:00Z')))).toBe('2022-05-10T06:00:00.000Z');
  });

  it('weeks, and spaces around', () => {
    expect(iso(parseRelativeDate(' -2w ', new Date('2024-05-15T00:00:00Z')))).toBe('2024-05-01T00:00:00.000Z');
  });
});

describe('ISO dates', () => {
  it('fractions of a second, spaces around', () => {
    expect(iso(parseIsoDate(' 2024-01-02T03:04:05.123Z '))).toBe('2024-01-02T03:04:05.123Z');
    expect(iso(parseIsoDate('2024-01-02T03:04:05.5'))).toBe('2024-01-02T03:04:05.500Z');
  });

  it('offsets: hours and minutes, with and without colon, either sign', () => {
    expect(iso(parseIsoDate('2024-01-02T10:00:00+02:00'))).toBe('2024-01-02T08:00:00.000Z');
    expect(iso(parseIsoDate('2024-01-02T10:00:00-0530'))).toBe('2024-01-02T15:30:00.000Z');
    expect(iso(parseIsoDate('2024-01-02T10:00:00+05'))).toBe('2024-01-02T05:00:00.000Z');
    expect(iso(parseIsoDate('2024-01-02T10:00:00+05:30'))).toBe('2024-01-02T04:30:00.000Z');
    expect(iso(parseIsoDate('2024-01-02T10:00:00z'))).toBe('2024-01-02T10:00:00.000Z');
    expect(iso(parseIsoDate('2024-01-02'))).toBe('2024-01-02T00:00:00.000Z');
  });

  it('refuses fields out of range, and accepts the last valid ones', () => {
    for (const text of ['2024-13-01', '2024-00-10', '2024-01-00', '2023-02-29', '2024-04-31', '2024-01-01T24:00', '2024-01-01T10:60', '2024-01-01T10:00:60']) {
      expect(parseIsoDate(text), text).toBeNull();
    }
    expect(iso(parseIsoDate('2024-12-31T23:59:59'))).toBe('2024-12-31T23:59:59.000Z');
    expect(iso(parseIsoDate('2024-02-29'))).toBe('2024-02-29T00:00:00.000Z');
  });
});

describe('property dates', () => {
  it('numeric strings are Unix seconds, with sign, fraction and spaces', () => {
    expect(iso(parsePropertyDate(' 1700000000 '))).toBe('2023-11-14T22:13:20.000Z');
    expect(iso(parsePropertyDate('+1700000000'))).toBe('2023-11-14T22:13:20.000Z');
    expect(iso(parsePropertyDate('1700000000.5'))).toBe('2023-11-14T22:13:20.500Z');
    expect(iso(parsePropertyDate('1700000000.25'))).toBe('2023-11-14T22:13:20.250Z');
    expect(iso(parsePropertyDate(' 2024-01-02 '))).toBe('2024-01-02T00:00:00.000Z');
  });
});
