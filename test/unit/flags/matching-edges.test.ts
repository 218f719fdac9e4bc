// Operator, variant and reason edges of flag matching that the broader tests pass over (found as
// surviving mutants, docs/mutation.md).
import { describe, expect, it } from 'vitest';
import { evaluateAll, evaluateFlag, flagHash, matchCohort, matchProperty, pickVariant } from '../../../src/flags';
import { payloadFor, variantFor } from '../../../src/flags/variants';
import { NOW, ctx, flag } from './helpers';

const match = (operator: string, value: unknown, actual: unknown) => matchProperty({ key: 'p', value, operator }, { p: actual }, NOW);

describe('operators', () => {
  it('a true/false filter compares truthiness, also against a list', () => {
    expect(match('exact', 'true', [true])).toBe(true);
    expect(match('exact', 'TRUE', true)).toBe(true);
  });

  it('numbers only when both sides are numeric, else text order', () => {
    expect(match('gt', 'abc', '10')).toBe(false);
    expect(match('lt', 'abc', '10')).toBe(true);
    expect(match('gt', 'a', 'b')).toBe(true);
    expect(match('gt', '10', 'abc')).toBe(true);
    expect(match('lt', '10', 'abc')).toBe(false);
  });

  it('gte/lte include equality, gt/lt do not, for numbers and for text', () => {
    expect([match('gte', 5, 5), match('gte', 5, 4), match('gte', 5, 6)]).toEqual([true, false, true]);
    expect([match('lt', 5, 5), match('lt', 5, 4), match('lt', 5, 6)]).toEqual([false, true, false]);
    expect([match('lte', 'b', 'b'), match('gte', 'b', 'b'), match('gt', 'b', 'b'), match('lt', 'b', 'b')]).toEqual([true, true, false, false]);
  });

  it('is_date_before and is_date_after are strict', () => {
    const at = '2024-01-02T00:00:00Z';
    expect(match('is_date_before', at, at)).toBe(false);
    expect(match('is_date_after', at, at)).toBe(false);
    expect(match('is_date_exact', at, at)).toBe(true);
  });

  it('a filter without a value matches nothing, not even is_not', () => {
    expect(match('is_not', null, 'x')).toBe(false);
    expect(match('is_not', undefined, 'x')).toBe(false);
  });

  it('a cohort filter whose value is not an id matches neither in nor not_in', () => {
    expect(matchCohort({ key: 'id', type: 'cohort', value: 'abc', operator: 'not_in' }, new Set([1]))).toBe(false);
    expect(matchCohort({ key: 'id', type: 'cohort', value: '2', operator: 'not_in' }, new Set([1]))).toBe(true);
  });
});

describe('variants', () => {
  const id = 'variant-user';
  const x = flagHash('mv', id, 'variant');

  it('each variant owns [lo, hi): a hash on a boundary goes to the later variant', () => {
    const variants = [
      { key: 'a', rollout_percentage: x * 100 },
      { key: 'b', rollout_percentage: 100 - x * 100 },
    ];
    expect(x * 100 / 100).toBe(x);
    expect(pickVariant('mv', id, variants)).toBe('b');
  });

  it('a hash past the first range picks a later variant, and one past all of them none', () => {
    const below = Math.floor(x * 100) - 1;
    expect(pickVariant('mv', id, [{ key: 'a', rollout_percentage: below }, { key: 'b', rollout_percentage: 100 - below }])).toBe('b');
    expect(pickVariant('mv', id, [{ key: 'a', rollout_percentage: below }])).toBeNull();
  });

  it('an override names a variant; an empty one does not', () => {
    const filters = { multivariate: { variants: [{ key: '', rollout_percentage: 0 }, { key: 'b', rollout_percentage: 100 }] } };
    expect(variantFor('mv', filters, '', id)).toBe('b');
    expect(variantFor('mv', filters, 'b', id)).toBe('b');
  });

  it('a payload stored as null or undefined is no payload', () => {
    expect(payloadFor({ payloads: { true: null } }, null)).toBeNull();
    expect(payloadFor({ payloads: { true: undefined } }, null)).toBeNull();
    expect(payloadFor({ payloads: { true: { a: 1 } } }, null)).toBe('{"a":1}');
  });
});

describe('reasons', () => {
  it('a group flag without sets reports no_group_type when the group is missing', () => {
    const f = flag('gx', { aggregation_group_type_index: 0, groups: [] });
    expect(evaluateFlag(f, ctx())).toMatchObject({ enabled: false, value: false, reason: { code: 'no_group_type' } });
    expect(evaluateFlag(f, ctx({ groups: { company: 'acme' } })).reason.code).toBe('no_condition_match');
    const g = flag('gy', { aggregation_group_type_index: 0, groups: null });
    expect(evaluateFlag(g, ctx()).reason).toEqual({ code: 'no_group_type', condition_index: null, description: 'No group type' });
  });

  it('a reason without an index and one for the first set are different reasons', () => {
    const none = evaluateFlag(flag('n0', { groups: [] }), ctx()).reason;
    const first = evaluateFlag(flag('n1', { groups: [{ properties: [{ key: 'plan', value: 'x' }] }] }), ctx()).reason;
    expect(none).toEqual({ code: 'no_condition_match', condition_index: null, description: 'No matching condition set' });
    expect(first).toEqual({ code: 'no_condition_match', condition_index: 0, description: 'No matching condition set' });
    const miss = { properties: [{ key: 'plan', value: 'x' }] };
    const second = evaluateFlag(flag('n2', { groups: [miss, miss] }), ctx()).reason;
    expect(second).toEqual({ code: 'no_condition_match', condition_index: 1, description: 'No matching condition set' });
    expect(evaluateFlag(flag('n3', { groups: [] }), ctx()).reason.condition_index).toBeNull();
  });
});

describe('evaluateAll', () => {
  it('builds the by-key dictionary once, on first read', () => {
    const r = evaluateAll([flag('a', { groups: [{ rollout_percentage: 100 }] })], ctx());
    expect(r.flags).toBe(r.flags);
    expect(Object.keys(r.flags)).toEqual(['a']);
  });
});
