import { describe, expect, it } from 'vitest';
import { evaluateFlag } from '../../../src/flags';
import { validateFilters } from '../../../src/flags/management/filters';
import { ctx, flag, idWhere } from './helpers';

// `filters.early_exit` (PostHog flags service): a set whose properties match but whose rollout
// leaves the id out ends the evaluation with false, reason out_of_rollout_bound at that set.
const KEY = 'early';
const outside30 = idWhere(KEY, (h) => h > 0.3);

function sets(earlyExit: boolean | undefined) {
  return flag(KEY, {
    ...(earlyExit === undefined ? {} : { early_exit: earlyExit }),
    groups: [
      { properties: [{ key: 'plan', value: 'free' }], rollout_percentage: 100 },
      { properties: [{ key: 'plan', value: 'pro' }], rollout_percentage: 30 },
      { properties: [], rollout_percentage: 100 },
    ],
    payloads: { true: '{"on":1}' },
  });
}

describe('filters.early_exit', () => {
  it('stops at a set whose properties match but whose rollout excludes the id', () => {
    const r = evaluateFlag(sets(true), ctx({ distinctId: outside30, personProperties: { plan: 'pro' } }));
    expect(r).toMatchObject({ enabled: false, value: false, variant: null, payload: null });
    expect(r.reason).toEqual({ code: 'out_of_rollout_bound', condition_index: 1, description: 'Out of rollout bound' });
  });

  it('without it (absent or false) evaluation goes on to the later sets', () => {
    for (const earlyExit of [undefined, false]) {
      const r = evaluateFlag(sets(earlyExit), ctx({ distinctId: outside30, personProperties: { plan: 'pro' } }));
      expect(r).toMatchObject({ enabled: true, value: true });
      expect(r.reason).toMatchObject({ code: 'condition_match', condition_index: 2 });
    }
  });

  it('a property mismatch still falls through to the next set', () => {
    const r = evaluateFlag(sets(true), ctx({ distinctId: outside30, personProperties: { plan: 'team' } }));
    expect(r).toMatchObject({ enabled: true });
    expect(r.reason).toMatchObject({ code: 'condition_match', condition_index: 2 });
  });

  it('a set without properties that leaves the id out also exits', () => {
    const f = flag(KEY, {
      early_exit: true,
      groups: [{ properties: [], rollout_percentage: 30 }, { properties: [], rollout_percentage: 100 }],
    });
    const r = evaluateFlag(f, ctx({ distinctId: outside30 }));
    expect(r).toMatchObject({ enabled: false });
    expect(r.reason).toMatchObject({ code: 'out_of_rollout_bound', condition_index: 0 });
  });

  it('an id inside the rollout still matches that set', () => {
    const inside = idWhere(KEY, (h) => h <= 0.3);
    const r = evaluateFlag(sets(true), ctx({ distinctId: inside, personProperties: { plan: 'pro' } }));
    expect(r).toMatchObject({ enabled: true });
    expect(r.reason).toMatchObject({ code: 'condition_match', condition_index: 1 });
  });

  it('a group set whose group is missing does not exit (no_group_type is not a rollout miss)', () => {
    const f = flag(KEY, {
      early_exit: true,
      groups: [
        { properties: [], rollout_percentage: 100, aggregation_group_type_index: 0 },
        { properties: [], rollout_percentage: 100, aggregation_group_type_index: null },
      ],
    });
    expect(evaluateFlag(f, ctx({ distinctId: outside30 })).enabled).toBe(true);
  });
});

describe('flag management keeps early_exit', () => {
  it('accepts a boolean and keeps it in the stored filters', () => {
    const filters = validateFilters({ early_exit: true, groups: [{ properties: [], rollout_percentage: 50 }] });
    expect(filters.early_exit).toBe(true);
  });

  it('refuses a non-boolean early_exit with a validation error naming filters', () => {
    expect(() => validateFilters({ early_exit: 'yes', groups: [] })).toThrow(/early_exit/);
  });
});
