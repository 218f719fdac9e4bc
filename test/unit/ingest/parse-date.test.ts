// Client dates (parse-date.ts): every accepted form, field ranges, zones and the epoch units at
// their boundaries. Written against surviving mutants (docs/mutation.md).
import { describe, expect, it } from 'vitest';
import { hasFourDigitYear, parseClientDate } from '../../../src/ingest/parse-date';

const at = (iso: string) => Date.parse(iso);

describe('ISO 8601', () => {
  it('fractions (dot or comma, cut to ms), t or space, zone names and offsets', () => {
    expect(parseClientDate('2024-01-02T03:04:05.123Z')).toBe(at('2024-01-02T03:04:05.123Z'));
    expect(parseClientDate('2024-01-02T03:04:05,5Z')).toBe(at('2024-01-02T03:04:05.500Z'));
    expect(parseClientDate('2024-01-02t03:04:05.123456+02:00')).toBe(at('2024-01-02T01:04:05.123Z'));
    expect(parseClientDate(' 2024-01-02 03:04 ')).toBe(at('2024-01-02T03:04:00Z'));
    expect(parseClientDate('2024-01-02T03:04:05 UTC')).toBe(at('2024-01-02T03:04:05Z'));
    expect(parseClientDate('2024-01-02T03:04:05GMT')).toBe(at('2024-01-02T03:04:05Z'));
    expect(parseClientDate('2024-01-02T03:04:05z')).toBe(at('2024-01-02T03:04:05Z'));
    expect(parseClientDate('2024-01-02T03:04:05+03')).toBe(at('2024-01-02T00:04:05Z'));
    expect(parseClientDate('2024-01-02T03:04:05-0530')).toBe(at('2024-01-02T08:34:05Z'));
    expect(parseClientDate('2024-01-02')).toBe(at('2024-01-02T00:00:00Z'));
    expect(parseClientDate('0099-06-01')).toBe(new Date(0).setUTCFullYear(99, 5, 1)); // not 1999
  });

  it('refuses fields and offsets out of range, and accepts the last valid ones', () => {
    for (const text of ['2024-02-30', '2023-02-29', '2024-13-01', '2024-00-01', '2024-01-00', '2024-01-01T24:00', '2024-01-01T23:60', '2024-01-01T23:59:60', '2024-01-01T00:00+24:00', '2024-01-01T00:00+05:60']) {
      expect(parseClientDate(text), text).toBeUndefined();
    }
    expect(parseClientDate('2024-12-31 23:59:59')).toBe(at('2024-12-31T23:59:59Z'));
    expect(parseClientDate('2024-02-29 00:00')).toBe(at('2024-02-29T00:00:00Z'));
    expect(parseClientDate('2024-01-01T00:00+23:59')).toBe(at('2023-12-31T00:01:00Z'));
  });
});

describe('other forms', () => {
  it('Y/M/D and US M/D/Y, with a time', () => {
    expect(parseClientDate('2024/1/2')).toBe(at('2024-01-02T00:00:00Z'));
    expect(parseClientDate('2024/01/02 03:04:05')).toBe(at('2024-01-02T03:04:05Z'));
    expect(parseClientDate('1/2/2024')).toBe(at('2024-01-02T00:00:00Z'));
    expect(parseClientDate('12/31/2024 23:59')).toBe(at('2024-12-31T23:59:00Z'));
    expect(parseClientDate('13/01/2024')).toBeUndefined();
  });

  it('RFC 2822 only with a zone', () => {
    expect(parseClientDate('Tue, 02 Jan 2024 03:04:05 +0200')).toBe(at('2024-01-02T01:04:05Z'));
    expect(parseClientDate('2 Jan 2024 03:04 GMT')).toBe(at('2024-01-02T03:04:00Z'));
    expect(parseClientDate('Tue, 02 Jan 2024 03:04:05')).toBeUndefined();
  });

  it('epoch numbers: the magnitude tells s, ms, µs or ns, at each boundary', () => {
    expect(parseClientDate(1700000000)).toBe(1700000000000);
    expect(parseClientDate(1700000000.5)).toBe(1700000000500);
    expect(parseClientDate('1700000000')).toBe(1700000000000);
    expect(parseClientDate('-1')).toBe(-1000);
    expect(parseClientDate(99_999_999_999)).toBe(99_999_999_999_000);
    expect(parseClientDate(1e11)).toBe(1e11);
    expect(parseClientDate(1e14 - 1)).toBe(1e14 - 1);
    expect(parseClientDate(1e14)).toBe(1e11);
    expect(parseClientDate(1e17 - 1000)).toBe(1e14 - 1);
    expect(parseClientDate(1e17)).toBe(1e11);
    expect(parseClientDate(1700000000000000)).toBe(1700000000000);
    expect(parseClientDate(1700000000000000000)).toBe(1700000000000);
  });

  it('nothing else', () => {
    for (const value of [NaN, Infinity, {}, null, undefined, true, '', '   ', 'yesterday', '1700000000x']) {
      expect(parseClientDate(value), String(value)).toBeUndefined();
    }
  });

  it('the same text twice gives the same answer, and a new one its own', () => {
    expect(parseClientDate('2024-03-04')).toBe(at('2024-03-04T00:00:00Z'));
    expect(parseClientDate('2024-03-04')).toBe(at('2024-03-04T00:00:00Z'));
    expect(parseClientDate('2024-03-05')).toBe(at('2024-03-05T00:00:00Z'));
    expect(parseClientDate('nope')).toBeUndefined();
    expect(parseClientDate('nope')).toBeUndefined();
  });
});

describe('four-digit years', () => {
  it('years 0 to 9999 only', () => {
    expect(hasFourDigitYear(Date.UTC(9999, 11, 31, 23, 59, 59, 999))).toBe(true);
    expect(hasFourDigitYear(Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 1)).toBe(false);
    expect(hasFourDigitYear(new Date(0).setUTCFullYear(0, 0, 1))).toBe(true);
    expect(hasFourDigitYear(new Date(0).setUTCFullYear(0, 0, 1) - 1)).toBe(false);
    expect(hasFourDigitYear(NaN)).toBe(false);
  });
});
