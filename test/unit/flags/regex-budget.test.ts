import { beforeEach, describe, expect, it } from 'vitest';
import {
  CLOCK_AFTER_UNITS,
  MAX_PROGRAM_SIZE,
  REQUEST_REGEX_UNITS,
  RESERVED_FOR_CHEAP,
  RegexBudget,
  RegexBudgetExceeded,
  evaluateAll,
  matchProperty,
  regexProblem,
  regexSearch,
} from '../../../src/flags';
import { MAX_STEPS } from '../../../src/flags/backtrack';
import { clearVerdicts } from '../../../src/flags/regex-verdicts';
import type { PropertyFilter } from '../../../src/flags/types';
import { NOW, ctx, flag } from './helpers';

// Issue 21, item 2: the regex work of one request is bounded as a whole, not per condition.

const LONG = 'a'.repeat(10_000);
// Units only: the clock backstop would make these depend on the machine's speed.
const unitsOnly = () => new RegexBudget(REQUEST_REGEX_UNITS, Infinity);
const m = (operator: string, value: unknown, actual: unknown) => matchProperty({ key: 'k', operator, value }, { k: actual }, NOW);
const regexOn = (key: string, value: string, operator = 'regex'): PropertyFilter => ({ key, type: 'person', operator, value });

beforeEach(() => clearVerdicts());

describe('the program-size limit', () => {
  it('refuses counted repetition nested three deep, on either engine', () => {
    expect(regexProblem('((a{1,10}){1,10}){1,10}$')).toMatch(/2222 instructions, more than 2000/);
    expect(regexProblem('(?=x)((a{1,10}){1,10}){1,10}')).toMatch(/more than 2000/);
    // RE2 refuses it outright (repeat count past 1,000); the backtracking engine cannot hold it either.
    expect(regexProblem('((a{1,100}){1,100}){1,100}')).toMatch(/more than 2000/);
    expect(regexProblem('x'.repeat(1_001))).toMatch(/longer than 1000/);
  });

  it('accepts ordinary patterns, and leaves syntax errors to evaluation (no match), as before', () => {
    for (const pattern of ['^https://(www\\.)?example\\.com/', '@example\\.com$', '(?=.*beta)admin', '\\d{1,3}(\\.\\d{1,3}){3}', '((a{1,10}){1,10}){1,9}$', '(('])
      expect(regexProblem(pattern), pattern).toBeNull();
    expect(m('regex', '((', 'x')).toBe(false);
  });

  it('a stored pattern past the limit is invalid at evaluation: neither regex nor not_regex matches', () => {
    const started = performance.now();
    expect(m('regex', '((a{1,10}){1,10}){1,10}$', LONG)).toBe(false);
    expect(m('not_regex', '((a{1,10}){1,10}){1,10}$', LONG)).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
    expect(MAX_PROGRAM_SIZE).toBe(2_000);
  });
});

describe('the request budget', () => {
  it('is shared: 150 backtracking conditions stop after the budget, not after 150 searches', () => {
    const budget = unitsOnly();
    let searched = 0;
    let stopped: unknown = null;
    try {
      for (let n = 1; n <= 150; n++, searched++) regexSearch(`(?=(a|a)*c)x{${n}}`, LONG, budget);
    } catch (err) {
      stopped = err;
    }
    expect(stopped).toBeInstanceOf(RegexBudgetExceeded);
    // Each search reaches the backtrack limit after about 200,000 steps: two fit, not 150.
    expect(searched).toBeGreaterThanOrEqual(1);
    expect(searched).toBeLessThanOrEqual(3);
    expect(budget.left).toBe(0);
  });

  it('charges RE2 its worst case before running: a program too costly for what is left never runs', () => {
    const budget = unitsOnly();
    const pattern = '((a{1,10}){1,10}){1,9}$'; // 2,000 instructions: allowed, but 2,000 × 10,001 units
    const started = performance.now();
    for (let i = 0; i < 8; i++) expect(() => regexSearch(pattern, `${LONG.slice(i + 1)}b`, budget)).toThrow(RegexBudgetExceeded);
    expect(performance.now() - started).toBeLessThan(50);
    expect(budget.left).toBe(REQUEST_REGEX_UNITS - RESERVED_FOR_CHEAP);
    // The same pattern on a short value is ordinary work.
    expect(regexSearch(pattern, 'aaab', budget)).toBe(false);
    expect(regexSearch(pattern, 'aaa', budget)).toBe(true);
  });

  it('keeps a reserve for cheap searches: ordinary regex conditions still answer once expensive ones spent their share', () => {
    const budget = unitsOnly();
    expect(() => {
      for (let n = 1; n <= 10; n++) regexSearch(`(?=(a|a)*c)x{${n}}`, LONG, budget);
    }).toThrow(RegexBudgetExceeded);
    expect(regexSearch('@example\\.com$', 'ann@example.com', budget)).toBe(true);
    expect(regexSearch('^https://(www\\.)?example\\.com/', 'https://example.com/docs', budget)).toBe(true);
    // But no more expensive work.
    expect(() => regexSearch('(?=.*beta)admin', 'admin beta', budget)).toThrow(RegexBudgetExceeded);
  });

  it('does not change ordinary verdicts, PostHog limits included', () => {
    const cases: [string, string][] = [
      ['(?=.*beta)admin', `${'/x'.repeat(4_000)}/admin/beta`],
      ['(?=.*beta)admin', '/x'.repeat(4_500)],
      ['^(?!/internal)x', `/internal${'y'.repeat(9_991)}`], // past the backtrack limit: null
      ['(a+)+$', `${'a'.repeat(5_000)}!`],
      ['^[a-z]+@example\\.com$', 'ann@example.com'],
    ];
    for (const [pattern, subject] of cases) {
      clearVerdicts();
      const plain = regexSearch(pattern, subject);
      clearVerdicts();
      expect(regexSearch(pattern, subject, unitsOnly()), pattern).toBe(plain);
    }
  });

  it('one full backtracking search (MAX_STEPS) still fits', () => {
    const budget = unitsOnly();
    // From regex-backtrack.test.ts: stops at the step limit of its own, so no verdict, no error.
    expect(regexSearch('(a*)(?:\\1)*b', 'a'.repeat(9_000), budget)).toBeNull();
    expect(budget.left).toBeLessThan(REQUEST_REGEX_UNITS - RESERVED_FOR_CHEAP - MAX_STEPS);
  });

  it('the clock is a backstop past CLOCK_AFTER_UNITS: then no expensive search goes on, cheap ones still run', () => {
    const budget = new RegexBudget(REQUEST_REGEX_UNITS, 0);
    // Below CLOCK_AFTER_UNITS the clock is not read: the first search (about 100,000 steps) answers.
    expect(regexSearch('(?=(a|a)*c)x', LONG.slice(5_000), budget)).toBe(false);
    expect(budget.clockFrom).toBeLessThan(CLOCK_AFTER_UNITS);
    expect(budget.clockFrom).toBeGreaterThan(0);
    expect(() => regexSearch('(?=(a|a)*c)xx', LONG, budget)).toThrow(/ms of searching spent/);
    expect(budget.clockFrom).toBe(0);
    expect(() => regexSearch('\\w{1,100}$', LONG, budget)).toThrow(RegexBudgetExceeded);
    expect(regexSearch('@example\\.com$', 'ann@example.com', budget)).toBe(true);
  });
});

describe('expensive verdicts are kept', () => {
  it('the same expensive pattern on the same value is searched once and then costs nothing', () => {
    const budget = unitsOnly();
    expect(regexSearch('(?=(a|a)*c)x', LONG, budget)).toBeNull();
    const after = budget.left;
    for (let i = 0; i < 20; i++) expect(regexSearch('(?=(a|a)*c)x', LONG, budget)).toBeNull();
    expect(budget.left).toBe(after);
    // Another request (a fresh budget) gets it free too.
    const next = unitsOnly();
    expect(regexSearch('(?=(a|a)*c)x', LONG, next)).toBeNull();
    expect(next.left).toBe(REQUEST_REGEX_UNITS - RESERVED_FOR_CHEAP);
  });

  it('a search stopped by the budget is not kept', () => {
    const poor = new RegexBudget(RESERVED_FOR_CHEAP + 50_000, Infinity);
    expect(() => regexSearch('(?=(a|a)*c)x', LONG, poor)).toThrow(RegexBudgetExceeded);
    expect(regexSearch('(?=(a|a)*c)x', LONG, unitsOnly())).toBeNull();
  });
});

describe('evaluateAll', () => {
  it('fails the flags the budget could not pay for, alone; the others are answered', () => {
    const hostile = flag('hostile', {
      groups: Array.from({ length: 150 }, (_, n) => ({ properties: [regexOn('path', `(?=(a|a)*c)x{${n + 1}}`)], rollout_percentage: 100 })),
    });
    const plain = flag('plain', { groups: [{ properties: [{ key: 'email', type: 'person', operator: 'icontains', value: '@example.com' }], rollout_percentage: 100 }] });
    const plainRegex = flag('plain-regex', { groups: [{ properties: [regexOn('email', '@example\\.com$')], rollout_percentage: 100 }] });
    const started = performance.now();
    const result = evaluateAll([hostile, plain, plainRegex], ctx({ personProperties: { path: LONG, email: 'ann@example.com' }, regexBudget: unitsOnly() }));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(result.errorsWhileComputingFlags).toBe(true);
    expect(result.flags.hostile).toBeUndefined();
    expect(result.flags.plain.enabled).toBe(true);
    expect(result.flags['plain-regex'].enabled).toBe(true);
  });

  it('gives every evaluation a budget of its own when the context has none', () => {
    // Each evaluation searches about 100,000 steps, under CLOCK_AFTER_UNITS, so the clock never
    // decides (a loaded machine gives the same answer); together they need more than one budget.
    const value = LONG.slice(5_000);
    const rounds = Math.ceil(REQUEST_REGEX_UNITS / 100_000) + 2;
    for (let n = 1; n <= rounds; n++) {
      const hostile = flag('hostile', { groups: [{ properties: [regexOn('path', `(?=(a|a)*c)x{${n}}`)], rollout_percentage: 100 }] });
      const result = evaluateAll([hostile], ctx({ personProperties: { path: value } }));
      expect(result.errorsWhileComputingFlags, `evaluation ${n}`).toBe(false);
      expect(result.flags.hostile.enabled).toBe(false);
    }
  });
});
