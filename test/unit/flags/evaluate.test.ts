import { describe, expect, it } from 'vitest';
import { evaluateFlag, pickVariant } from '../../../src/flags';
import { ctx, flag, idWhere } from './helpers';

const VARIANTS = [
  { key: 'control', rollout_percentage: 50 },
  { key: 'test', rollout_percentage: 50 },
];

describe('conditions and reasons', () => {
  it('an inactive flag is off with reason flag_disabled', () => {
    const f = flag('off', { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '1' } }, {
      active: false,
    });
    expect(evaluateFlag(f, ctx())).toEqual({
      key: 'off',
      enabled: false,
      variant: null,
      value: false,
      reason: { code: 'flag_disabled', condition_index: null, description: 'Feature flag is disabled' },
      payload: null,
      id: 7,
      version: 3,
    });
  });

  it('the first matching set wins and is reported 0-based with a 1-based description', () => {
    const f = flag('sets', {
      groups: [
        { properties: [{ key: 'plan', value: 'enterprise' }] },
        { properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: null },
        { properties: [], rollout_percentage: 100 },
      ],
    });
    const r = evaluateFlag(f, ctx({ personProperties: { plan: 'Pro' } }));
    expect(r).toMatchObject({ enabled: true, value: true, variant: null });
    expect(r.reason).toEqual({ code: 'condition_match', condition_index: 1, description: 'Matched condition set 2' });
  });

  it('reports no_condition_match (last set) when nothing is targeted', () => {
    const f = flag('nomatch', {
      groups: [{ properties: [{ key: 'plan', value: 'a' }] }, { properties: [{ key: 'plan', value: 'b' }] }],
    });
    const r = evaluateFlag(f, ctx({ personProperties: { plan: 'c' } }));
    expect(r).toMatchObject({ enabled: false, value: false });
    expect(r.reason).toEqual({ code: 'no_condition_match', condition_index: 1, description: 'No matching condition set' });
  });

  it('prefers out_of_rollout_bound over no_condition_match', () => {
    const outside = idWhere('partial', (h) => h > 0.3);
    const f = flag('partial', {
      groups: [
        { properties: [{ key: 'plan', value: 'pro' }], rollout_percentage: 30 },
        { properties: [{ key: 'plan', value: 'other' }] },
      ],
    });
    const r = evaluateFlag(f, ctx({ distinctId: outside, personProperties: { plan: 'pro' } }));
    expect(r.enabled).toBe(false);
    expect(r.reason).toEqual({ code: 'out_of_rollout_bound', condition_index: 0, description: 'Out of rollout bound' });
  });

  it('applies rollout as h(key, id) <= pct/100', () => {
    const inside = idWhere('roll', (h) => h <= 0.3);
    const outside = idWhere('roll', (h) => h > 0.3);
    const f = flag('roll', { groups: [{ properties: [], rollout_percentage: 30 }] });
    expect(evaluateFlag(f, ctx({ distinctId: inside })).enabled).toBe(true);
    expect(evaluateFlag(f, ctx({ distinctId: outside })).enabled).toBe(false);
    const none = flag('roll', { groups: [{ properties: [], rollout_percentage: 0 }] });
    expect(evaluateFlag(none, ctx({ distinctId: inside })).reason.code).toBe('out_of_rollout_bound');
  });

  it('a flag without sets matches nobody', () => {
    expect(evaluateFlag(flag('empty', { groups: [] }), ctx()).reason).toEqual({
      code: 'no_condition_match',
      condition_index: null,
      description: 'No matching condition set',
    });
  });

  it('exposes distinct_id as a person property unless the person sets one', () => {
    const f = flag('me', { groups: [{ properties: [{ key: 'distinct_id', value: 'user-1' }] }] });
    expect(evaluateFlag(f, ctx()).enabled).toBe(true);
    expect(evaluateFlag(f, ctx({ distinctId: 'user-2' })).enabled).toBe(false);
    expect(evaluateFlag(f, ctx({ distinctId: 'user-2', personProperties: { distinct_id: 'user-1' } })).enabled).toBe(
      true,
    );
  });

  it('uses cohort membership and the passed-in now', () => {
    const f = flag('cohorts', {
      groups: [
        {
          properties: [
            { key: 'id', type: 'cohort', value: 5 },
            { key: 'signed_up', operator: 'is_date_after', value: '-7d' },
          ],
        },
      ],
    });
    const person = { signed_up: '2024-01-08T00:00:00Z' };
    expect(evaluateFlag(f, ctx({ personProperties: person, personCohorts: new Set([5]) })).enabled).toBe(true);
    expect(evaluateFlag(f, ctx({ personProperties: person, personCohorts: new Set([6]) })).enabled).toBe(false);
    const later = ctx({ personProperties: person, personCohorts: new Set([5]), now: new Date('2024-02-01T00:00:00Z') });
    expect(evaluateFlag(f, later).enabled).toBe(false);
  });
});

describe('variants', () => {
  const mv = (override?: string) =>
    flag('exp', {
      groups: [{ properties: [], rollout_percentage: 100, variant: override }],
      multivariate: { variants: VARIANTS },
      payloads: { control: '{"color":"blue"}', test: '"red"' },
    });

  it('picks the variant from h(key, id, "variant")', () => {
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) {
      const r = evaluateFlag(mv(), ctx({ distinctId: id }));
      expect(r.variant).toBe(pickVariant('exp', id, VARIANTS));
      expect(r.value).toBe(r.variant);
      expect(r.enabled).toBe(true);
    }
  });

  it('a set override wins only when it names a real variant', () => {
    for (const id of ['a', 'b', 'c', 'd']) {
      expect(evaluateFlag(mv('test'), ctx({ distinctId: id })).variant).toBe('test');
      expect(evaluateFlag(mv('nope'), ctx({ distinctId: id })).variant).toBe(pickVariant('exp', id, VARIANTS));
    }
  });

  it('returns the payload stored for the served variant', () => {
    const r = evaluateFlag(mv('control'), ctx());
    expect(r.payload).toBe('{"color":"blue"}');
    expect(evaluateFlag(mv('test'), ctx()).payload).toBe('"red"');
  });

  it('uncovered hash ranges fall back to plain true', () => {
    const partial = [{ key: 'only', rollout_percentage: 0 }];
    const f = flag('gap', { groups: [{ properties: [] }], multivariate: { variants: partial } });
    expect(evaluateFlag(f, ctx())).toMatchObject({ enabled: true, variant: null, value: true });
  });
});

describe('payloads', () => {
  it('uses filters.payloads["true"] for boolean flags, null when off or absent', () => {
    const on = flag('p', { groups: [{ properties: [] }], payloads: { true: '{"a":1}' } });
    expect(evaluateFlag(on, ctx()).payload).toBe('{"a":1}');
    const off = flag('p', { groups: [{ properties: [], rollout_percentage: 0 }], payloads: { true: '{"a":1}' } });
    expect(evaluateFlag(off, ctx()).payload).toBeNull();
    expect(evaluateFlag(flag('p', { groups: [{ properties: [] }] }), ctx()).payload).toBeNull();
  });

  it('JSON-encodes payloads that were stored unencoded', () => {
    const raw = flag('p', { groups: [{ properties: [] }], payloads: { true: { a: [1, 2] } } });
    expect(evaluateFlag(raw, ctx()).payload).toBe('{"a":[1,2]}');
  });
});

describe('shared evaluations', () => {
  const rollout = (key: string) => flag(key, { groups: [{ properties: [], rollout_percentage: 50 }], payloads: { true: '{"n":1}' } });

  it('hands out one frozen evaluation per flag and outcome, whoever is evaluated', () => {
    const f = rollout('shared');
    const inA = idWhere('shared', (h) => h <= 0.5, 'a-');
    const inB = idWhere('shared', (h) => h <= 0.5, 'b-');
    const out = idWhere('shared', (h) => h > 0.5);
    const first = evaluateFlag(f, ctx({ distinctId: inA }));
    expect(evaluateFlag(f, ctx({ distinctId: inB }))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first).toMatchObject({ enabled: true, payload: '{"n":1}' });
    const off = evaluateFlag(f, ctx({ distinctId: out }));
    expect(off).not.toBe(first);
    expect(off).toMatchObject({ enabled: false, payload: null, reason: { code: 'out_of_rollout_bound' } });
  });

  it('keeps an enrolled and an opted-out person apart although both carry the same reason', () => {
    const f = flag('beta', { groups: [{ properties: [], rollout_percentage: 0 }], feature_enrollment: true });
    const enrolled = evaluateFlag(f, ctx({ personProperties: { '$feature_enrollment/beta': true } }));
    const optedOut = evaluateFlag(f, ctx({ personProperties: { '$feature_enrollment/beta': false } }));
    expect(enrolled.reason).toBe(optedOut.reason);
    expect([enrolled.enabled, optedOut.enabled]).toEqual([true, false]);
  });

  it('builds new evaluations for a changed definition (a new version is a new object)', () => {
    const id = idWhere('shared', (h) => h <= 0.5);
    const before = evaluateFlag(rollout('shared'), ctx({ distinctId: id }));
    const changed = { ...rollout('shared'), version: 4, filters: { ...rollout('shared').filters, payloads: { true: '"new"' } } };
    expect(evaluateFlag(changed, ctx({ distinctId: id }))).toMatchObject({ version: 4, payload: '"new"' });
    expect(before).toMatchObject({ version: 3, payload: '{"n":1}' });
  });
});
