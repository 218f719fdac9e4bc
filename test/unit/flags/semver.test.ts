// Semantic-version parsing, ordering and ranges (semver.ts), at the edges the operator tests skip.
import { describe, expect, it } from 'vitest';
import { compareSemver, matchSemver, parseSemver } from '../../../src/flags';
import { isSemverOperand } from '../../../src/flags/semver';

describe('parseSemver', () => {
  it('is lenient about a leading v, spaces, missing parts and numbers', () => {
    expect(parseSemver(' v1.2.3 ')).toEqual({ core: [1, 2, 3], pre: [] });
    expect(parseSemver('V1.2')).toEqual({ core: [1, 2, 0], pre: [] });
    expect(parseSemver(3)).toEqual({ core: [3, 0, 0], pre: [] });
    expect(parseSemver('1.2.3-alpha.1+build.5')).toEqual({ core: [1, 2, 3], pre: ['alpha', '1'] });
    // Only a leading v is dropped.
    expect(parseSemver('1.2.3-rev')).toEqual({ core: [1, 2, 3], pre: ['rev'] });
  });

  it('refuses what is not a version', () => {
    for (const v of [null, undefined, {}, ['1'], true, '1.a.3', '1.2.3.4', '99999999999999999999', '1.2.3-al$pha', '1.2.3-', '1.2.3-a..b', '1.0x10.3', '1.1e2']) {
      expect(parseSemver(v), JSON.stringify(v)).toBeNull();
    }
  });
});

describe('ordering', () => {
  it('follows semver precedence, pre-releases below the release', () => {
    const ordered = [
      '0.9.9',
      '1.0.0-2',
      '1.0.0-10',
      '1.0.0--x',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '2.0.0',
    ].map((v) => parseSemver(v)!);
    for (let i = 0; i < ordered.length; i++) {
      for (let j = 0; j < ordered.length; j++) {
        expect(compareSemver(ordered[i], ordered[j]), `${i} vs ${j}`).toBe(Math.sign(i - j));
      }
    }
  });

  it('reads numeric identifiers as numbers, leading zeros and all (it once ranked 01 and 1 each above the other)', () => {
    const [a, b] = [parseSemver('1.0.0-01')!, parseSemver('1.0.0-1')!];
    expect(compareSemver(a, b)).toBe(0);
    expect(compareSemver(parseSemver('1.0.0-01.a')!, parseSemver('1.0.0-1.b')!)).toBe(-1);
    expect(compareSemver(parseSemver('1.0.0-1.b')!, parseSemver('1.0.0-01.a')!)).toBe(1);
  });

  it('the comparison operators', () => {
    const cases: [string, [boolean, boolean, boolean]][] = [
      // operator: [1.0.0 vs 2.0.0, 2.0.0 vs 2.0.0, 3.0.0 vs 2.0.0]
      ['semver_eq', [false, true, false]],
      ['semver_neq', [true, false, true]],
      ['semver_gt', [false, false, true]],
      ['semver_gte', [false, true, true]],
      ['semver_lt', [true, false, false]],
      ['semver_lte', [true, true, false]],
    ];
    for (const [operator, expected] of cases) {
      expect(['1.0.0', '2.0.0', '3.0.0'].map((v) => matchSemver(operator, v, '2.0.0')), operator).toEqual(expected);
    }
    expect(matchSemver('semver_unknown', '1.0.0', '1.0.0')).toBe(false);
    expect(matchSemver('semver_eq', '1.0.0', 'nope')).toBe(false);
  });
});

describe('ranges', () => {
  it('tilde and caret refuse an unreadable filter instead of throwing', () => {
    expect(matchSemver('semver_tilde', '1.0.0', 'abc')).toBe(false);
    expect(matchSemver('semver_caret', '1.0.0', 'abc')).toBe(false);
  });

  it('wildcards: 1.* and 1.x.x, 1.2.*, * and x, and an exact version without one', () => {
    const w = (version: string, filter: unknown) => matchSemver('semver_wildcard', version, filter);
    expect([w('1.5.0', '1.*'), w('2.0.0', '1.*'), w('0.9.0', '1.*')]).toEqual([true, false, false]);
    expect([w('1.9.0', '1.x.x'), w('1.9.0', ' v1.* '), w('1.4.0', 1)]).toEqual([true, true, true]);
    expect([w('1.2.9', '1.2.*'), w('1.3.0', '1.2.*'), w('1.1.0', '1.2.*')]).toEqual([true, false, false]);
    expect([w('99.0.0', '*'), w('0.0.0', 'x'), w('3.1.4', 'X')]).toEqual([true, true, true]);
    expect([w('1.2.3', '1.2.3'), w('1.2.4', '1.2.3'), w('1.2.2', '1.2.3')]).toEqual([true, false, false]);
    // A wildcard is only trailing.
    expect([w('1.3.0', '1.*.3'), w('1.2.3', '1.2.3.4'), w('1.0.0', {})]).toEqual([false, false, false]);
  });

  it('isSemverOperand says which filter values an operator can use', () => {
    expect(isSemverOperand('semver_eq', '1.2.3')).toBe(true);
    expect(isSemverOperand('semver_eq', 'abc')).toBe(false);
    expect(isSemverOperand('exact', '1.2.3')).toBe(false);
    expect(isSemverOperand('semver_wildcard', '1.*')).toBe(true);
    expect(isSemverOperand('semver_wildcard', 2)).toBe(true);
    expect(isSemverOperand('semver_wildcard', '1.*.3')).toBe(false);
    expect(isSemverOperand('semver_wildcard', {})).toBe(false);
    expect(isSemverOperand('semver_wildcard', ['1'])).toBe(false);
    expect(isSemverOperand('semver_wildcard', '1v.*')).toBe(false);
    expect(isSemverOperand('semver_wildcard', 'v1.*')).toBe(true);
  });
});
