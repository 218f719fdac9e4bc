import { describe, expect, it } from 'vitest';
import { matchCohort, matchProperty } from '../../../src/flags';

const NOW = new Date('2024-01-10T12:00:00Z');

/** Matches filter {key: 'key', value, operator} against `props`. */
const m = (operator: string | undefined, value: unknown, props: Record<string, unknown>) =>
  matchProperty({ key: 'key', value, operator }, props, NOW);
const v = (value: unknown) => ({ key: value });

describe('exact (the default operator)', () => {
  it('compares case-insensitively as strings', () => {
    expect(m('exact', 'value', v('value'))).toBe(true);
    expect(m('exact', 'value', v('VaLuE'))).toBe(true);
    expect(m(undefined, 'value', v('value'))).toBe(true);
    expect(m('exact', 'value', v('value2'))).toBe(false);
    expect(m('exact', 'value', v(''))).toBe(false);
  });

  it('matches any element of a list value', () => {
    expect(m('exact', ['US', 'ca'], v('us'))).toBe(true);
    expect(m('exact', ['US', 'ca'], v('CA'))).toBe(true);
    expect(m('exact', ['US', 'ca'], v('de'))).toBe(false);
    expect(m('exact', [], v('us'))).toBe(false);
  });

  it('treats numbers and numeric strings alike', () => {
    expect(m('exact', 5, v('5'))).toBe(true);
    expect(m('exact', '5', v(5))).toBe(true);
    expect(m('exact', ['1', '2'], v(2))).toBe(true);
    expect(m('exact', 5, v(6))).toBe(false);
  });

  it('compares truthiness for boolean-like values', () => {
    expect(m('exact', 'true', v(true))).toBe(true);
    expect(m('exact', true, v('TRUE'))).toBe(true);
    expect(m('exact', 'false', v(false))).toBe(true);
    expect(m('exact', ['true'], v(true))).toBe(true);
    expect(m('exact', 'true', v('yes'))).toBe(false);
    expect(m('exact', 'true', v(false))).toBe(false);
  });

  it('reads null as the text "null" and never matches a missing property', () => {
    expect(m('exact', 'value', v(null))).toBe(false);
    expect(m('exact', 'null', v(null))).toBe(true);
    expect(m('exact', 'value', {})).toBe(false);
    expect(m('exact', 'value', v(undefined))).toBe(false);
    expect(m('exact', 'value', { other: 'value' })).toBe(false);
  });

  it('never matches a filter without a value', () => {
    expect(m('exact', null, v('x'))).toBe(false);
    expect(m('is_not', undefined, v('x'))).toBe(false);
  });
});

describe('is_not', () => {
  it('is the negation of exact, and holds when the property is missing', () => {
    expect(m('is_not', 'value', v('value2'))).toBe(true);
    expect(m('is_not', 'value', v('VALUE'))).toBe(false);
    expect(m('is_not', ['a', 'b'], v('c'))).toBe(true);
    expect(m('is_not', ['a', 'b'], v('B'))).toBe(false);
    expect(m('is_not', 'value', v(null))).toBe(true);
    expect(m('is_not', 'value', {})).toBe(true);
  });
});

describe('is_set / is_not_set', () => {
  it('look only at presence; null counts as set, undefined does not', () => {
    expect(m('is_set', 'is_set', v('x'))).toBe(true);
    expect(m('is_set', 'is_set', v(null))).toBe(true);
    expect(m('is_set', 'is_set', v(''))).toBe(true);
    expect(m('is_set', 'is_set', {})).toBe(false);
    expect(m('is_set', 'is_set', v(undefined))).toBe(false);
    expect(m('is_not_set', 'is_not_set', {})).toBe(true);
    expect(m('is_not_set', 'is_not_set', v(undefined))).toBe(true);
    expect(m('is_not_set', 'is_not_set', v(0))).toBe(false);
  });
});

describe('icontains / not_icontains', () => {
  it('search case-insensitively in the text form', () => {
    expect(m('icontains', 'valUe', v('343tfVALUE5'))).toBe(true);
    expect(m('icontains', '3', v(323))).toBe(true);
    expect(m('icontains', 'valUe', v('Alakazam'))).toBe(false);
    expect(m('not_icontains', 'valUe', v('Alakazam'))).toBe(true);
    expect(m('not_icontains', 'valUe', v('xVALUEx'))).toBe(false);
  });

  it('missing: only the negative form matches', () => {
    expect(m('icontains', 'a', {})).toBe(false);
    expect(m('not_icontains', 'a', {})).toBe(true);
    expect(m('icontains', 'nul', v(null))).toBe(true);
  });
});

describe('starts_with / ends_with and their not_ forms', () => {
  it('compare prefixes and suffixes case-insensitively', () => {
    expect(m('starts_with', 'Val', v('value'))).toBe(true);
    expect(m('starts_with', 'val', v('xvalue'))).toBe(false);
    expect(m('not_starts_with', 'val', v('xvalue'))).toBe(true);
    expect(m('not_starts_with', 'VAL', v('value'))).toBe(false);
    expect(m('ends_with', '.COM', v('a@b.com'))).toBe(true);
    expect(m('ends_with', '.com', v('a@b.org'))).toBe(false);
    expect(m('not_ends_with', '.com', v('a@b.org'))).toBe(true);
    expect(m('not_ends_with', '.com', v('a@b.com'))).toBe(false);
    expect(m('ends_with', '23', v(123))).toBe(true);
  });

  it('missing: only the negative forms match', () => {
    expect(m('starts_with', 'a', {})).toBe(false);
    expect(m('ends_with', 'a', {})).toBe(false);
    expect(m('not_starts_with', 'a', {})).toBe(true);
    expect(m('not_ends_with', 'a', {})).toBe(true);
  });
});

describe('regex / not_regex', () => {
  it('search the text form for the pattern', () => {
    expect(m('regex', '\\.com$', v('value.com'))).toBe(true);
    expect(m('regex', '\\.com$', v('.com343tfvalue5'))).toBe(false);
    expect(m('regex', '3', v(323))).toBe(true);
    expect(m('regex', 4, v(4))).toBe(true);
    expect(m('not_regex', 4, v(4))).toBe(false);
    expect(m('not_regex', 4, v('value'))).toBe(true);
    expect(m('regex', '^$', v(''))).toBe(true);
  });

  it('an invalid pattern matches neither regex nor not_regex', () => {
    expect(m('regex', '?*', v('value'))).toBe(false);
    expect(m('not_regex', '?*', v('value'))).toBe(false);
    expect(m('regex', '(unclosed', v('(unclosed'))).toBe(false);
    // Lookbehind of variable length is refused by fancy-regex, so by the fallback engine too.
    expect(m('regex', '(?<=a+)b', v('aab'))).toBe(false);
    expect(m('not_regex', '(?<=a+)b', v('aab'))).toBe(false);
  });

  it('missing: only not_regex matches', () => {
    expect(m('regex', 'a', {})).toBe(false);
    expect(m('not_regex', 'a', {})).toBe(true);
  });

  it('catastrophic patterns finish quickly with the right answer', () => {
    const started = performance.now();
    expect(m('regex', '(a+)+$', v(`${'a'.repeat(5_000)}!`))).toBe(false);
    expect(m('regex', '(a|aa)+b', v('a'.repeat(5_000)))).toBe(false);
    expect(m('regex', '.*a.*a.*a.*a.*b', v('a'.repeat(5_000)))).toBe(false);
    expect(m('regex', '(a+)+$', v('aaaa'))).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('refuses over-long patterns and values (no verdict either way)', () => {
    const longPattern = 'a'.repeat(1_001);
    expect(m('regex', longPattern, v(longPattern))).toBe(false);
    expect(m('not_regex', longPattern, v('b'))).toBe(false);
    const longValue = 'b'.repeat(10_001);
    expect(m('regex', 'b', v(longValue))).toBe(false);
    expect(m('not_regex', 'a', v(longValue))).toBe(false);
  });
});

describe('gt / gte / lt / lte', () => {
  it('compare numerically when both sides are numbers', () => {
    expect(m('gt', 1, v(2))).toBe(true);
    expect(m('gt', 1, v(1))).toBe(false);
    expect(m('gte', 1, v(1))).toBe(true);
    expect(m('lt', 1, v(0))).toBe(true);
    expect(m('lt', 1, v(-3))).toBe(true);
    expect(m('lte', '43', v('43'))).toBe(true);
    expect(m('lte', '43', v(44))).toBe(false);
    // Numeric strings compare as numbers: 10 > 9 although "10" < "9" as text.
    expect(m('gt', '9', v('10'))).toBe(true);
    expect(m('gt', 9, v(' 10 '))).toBe(true);
    expect(m('lt', '1e3', v(999))).toBe(true);
  });

  it('fall back to string order otherwise', () => {
    expect(m('gt', 'a', v('b'))).toBe(true);
    expect(m('lt', 'a', v('b'))).toBe(false);
    expect(m('gt', '5', v('12abc'))).toBe(false);
    expect(m('gte', 'abc', v('abc'))).toBe(true);
  });

  it('never match a missing or null property', () => {
    expect(m('gt', 1, {})).toBe(false);
    expect(m('lt', 1, {})).toBe(false);
    expect(m('gte', 1, v(null))).toBe(false);
    expect(m('lte', 1, v(null))).toBe(false);
  });
});

describe('is_date_before / is_date_after / is_date_exact', () => {
  it('compare absolute ISO dates and datetimes', () => {
    expect(m('is_date_before', '2022-05-01', v('2022-03-01'))).toBe(true);
    expect(m('is_date_before', '2022-05-01', v('2022-04-30T23:59:59Z'))).toBe(true);
    expect(m('is_date_before', '2022-05-01', v('2022-05-30'))).toBe(false);
    expect(m('is_date_after', '2022-05-01', v('2022-05-02'))).toBe(true);
    expect(m('is_date_after', '2022-05-01', v('2022-04-30'))).toBe(false);
    expect(m('is_date_before', '2022-05-01', v(new Date('2022-04-30T00:00:00Z')))).toBe(true);
  });

  it('honour explicit offsets', () => {
    const filter = '2022-04-05 12:34:12 +01:00';
    expect(m('is_date_before', filter, v('2022-04-05 12:34:11+01:00'))).toBe(true);
    expect(m('is_date_before', filter, v('2022-04-05 11:34:11 +00:00'))).toBe(true);
    expect(m('is_date_before', filter, v('2022-04-05T11:34:13Z'))).toBe(false);
  });

  it('read numbers as Unix seconds', () => {
    const jan5 = Date.UTC(2024, 0, 5) / 1000;
    expect(m('is_date_after', '2024-01-01', v(jan5))).toBe(true);
    expect(m('is_date_after', '2024-01-01', v(String(jan5)))).toBe(true);
    expect(m('is_date_exact', '2024-01-05T00:00:00Z', v(jan5))).toBe(true);
  });

  it('resolve relative dates against the given now (2024-01-10T12:00Z)', () => {
    // -7d is 2024-01-03T12:00Z
    expect(m('is_date_after', '-7d', v('2024-01-05'))).toBe(true);
    expect(m('is_date_before', '-7d', v('2024-01-05'))).toBe(false);
    expect(m('is_date_after', '7d', v('2024-01-05'))).toBe(true);
    expect(m('is_date_before', '-7d', v('2024-01-03T11:59:59Z'))).toBe(true);
    expect(m('is_date_after', '-2h', v('2024-01-10T10:30:00Z'))).toBe(true);
    expect(m('is_date_after', '-2h', v('2024-01-10T09:30:00Z'))).toBe(false);
    expect(m('is_date_after', '-1w', v('2024-01-03T12:00:01Z'))).toBe(true);
    expect(m('is_date_after', '-3m', v('2023-10-11'))).toBe(true);
    expect(m('is_date_after', '-3m', v('2023-10-10'))).toBe(false);
    expect(m('is_date_before', '-1y', v('2023-01-10T11:00:00Z'))).toBe(true);
    expect(m('is_date_exact', '-1d', v('2024-01-09T12:00:00Z'))).toBe(true);
  });

  it('match exact dates only at the same instant', () => {
    expect(m('is_date_exact', '2024-01-03', v('2024-01-03T00:00:00Z'))).toBe(true);
    expect(m('is_date_exact', '2024-01-03', v('2024-01-03T00:00:01Z'))).toBe(false);
  });

  it('never match invalid dates or missing properties', () => {
    expect(m('is_date_before', 'abcd123', v('2022-05-30'))).toBe(false);
    expect(m('is_date_before', '2022-05-01', v('abcdef'))).toBe(false);
    expect(m('is_date_before', '2022-13-01', v('2022-05-30'))).toBe(false);
    expect(m('is_date_before', '2022-05-01', v(true))).toBe(false);
    expect(m('is_date_before', '2022-05-01', {})).toBe(false);
    expect(m('is_date_after', '-10000d', v('2022-05-30'))).toBe(false);
  });
});

describe('semver operators', () => {
  it('compare versions numerically, leniently parsed', () => {
    expect(m('semver_eq', '1.2.3', v('v1.2.3'))).toBe(true);
    expect(m('semver_eq', '3.10.0', v('3.10'))).toBe(true);
    expect(m('semver_eq', '3.8.0', v('3.08'))).toBe(true);
    expect(m('semver_eq', '1.2.3', v('1.2.4'))).toBe(false);
    expect(m('semver_neq', '1.2.3', v('1.2.4'))).toBe(true);
    expect(m('semver_gt', '1.9.0', v('1.10.0'))).toBe(true);
    expect(m('semver_gt', '1.10.0', v('1.9.0'))).toBe(false);
    expect(m('semver_gte', '1.2.3', v('1.2.3'))).toBe(true);
    expect(m('semver_lt', '2.0.0', v('1.99.99'))).toBe(true);
    expect(m('semver_lte', '2.0.0', v('2.0.1'))).toBe(false);
  });

  it('order pre-releases below their release', () => {
    expect(m('semver_lt', '1.2.3', v('1.2.3-alpha'))).toBe(true);
    expect(m('semver_lt', '1.2.3-beta', v('1.2.3-alpha.9'))).toBe(true);
    expect(m('semver_gt', '1.2.3-alpha.2', v('1.2.3-alpha.10'))).toBe(true);
    expect(m('semver_eq', '1.2.3', v('1.2.3+build.7'))).toBe(true);
  });

  it('support tilde, caret and wildcard ranges', () => {
    expect(m('semver_tilde', '1.2.3', v('1.2.9'))).toBe(true);
    expect(m('semver_tilde', '1.2.3', v('1.2.2'))).toBe(false);
    expect(m('semver_tilde', '1.2.3', v('1.3.0'))).toBe(false);
    expect(m('semver_caret', '1.2.3', v('1.9.0'))).toBe(true);
    expect(m('semver_caret', '1.2.3', v('2.0.0'))).toBe(false);
    expect(m('semver_caret', '0.2.3', v('0.2.9'))).toBe(true);
    expect(m('semver_caret', '0.2.3', v('0.3.0'))).toBe(false);
    expect(m('semver_caret', '0.0.3', v('0.0.3'))).toBe(true);
    expect(m('semver_caret', '0.0.3', v('0.0.4'))).toBe(false);
    expect(m('semver_wildcard', '1.2.*', v('1.2.7'))).toBe(true);
    expect(m('semver_wildcard', '1.2.*', v('1.3.0'))).toBe(false);
    expect(m('semver_wildcard', '1.*', v('1.99.1'))).toBe(true);
    expect(m('semver_wildcard', '1.*.*', v('2.0.0'))).toBe(false);
    expect(m('semver_wildcard', '*', v('42.0.1'))).toBe(true);
  });

  it('never match unparsable versions or missing properties', () => {
    expect(m('semver_eq', '1.2.3', v('abc'))).toBe(false);
    expect(m('semver_neq', '1.2.3', v('abc'))).toBe(false);
    expect(m('semver_gt', 'not-a-version', v('1.0.0'))).toBe(false);
    expect(m('semver_gt', '1.0.0', v('1.2.3.4'))).toBe(false);
    expect(m('semver_wildcard', '1.*.3', v('1.2.3'))).toBe(false);
    expect(m('semver_gt', '1.0.0', {})).toBe(false);
    expect(m('semver_neq', '1.0.0', {})).toBe(false);
    expect(m('semver_gt', '1.0.0', v(null))).toBe(false);
  });
});

describe('cohort in / not_in', () => {
  const cohorts = new Set([42]);
  it('check the membership set by cohort id', () => {
    expect(matchCohort({ key: 'id', type: 'cohort', value: 42 }, cohorts)).toBe(true);
    expect(matchCohort({ key: 'id', type: 'cohort', value: '42', operator: 'in' }, cohorts)).toBe(true);
    expect(matchCohort({ key: 'id', type: 'cohort', value: 7, operator: 'in' }, cohorts)).toBe(false);
    expect(matchCohort({ key: 'id', type: 'cohort', value: 7, operator: 'not_in' }, cohorts)).toBe(true);
    expect(matchCohort({ key: 'id', type: 'cohort', value: 42, operator: 'not_in' }, cohorts)).toBe(false);
  });

  it('treat unknown membership as "in no cohort"', () => {
    expect(matchCohort({ key: 'id', type: 'cohort', value: 42 }, undefined)).toBe(false);
    expect(matchCohort({ key: 'id', type: 'cohort', value: 42, operator: 'not_in' }, undefined)).toBe(true);
    expect(matchCohort({ key: 'id', type: 'cohort', value: 'abc' }, cohorts)).toBe(false);
  });
});

describe('unknown operators', () => {
  it('never match', () => {
    expect(m('bogus', 'x', v('x'))).toBe(false);
    expect(m('toString', 'x', v('x'))).toBe(false);
  });
});
