import { describe, expect, it } from 'vitest';
import { evaluateAll, evaluateFlag, flagHash, type FlagDefinition } from '../../../src/flags';
import { ctx, flag, idWhere } from './helpers';

describe('group flags', () => {
  const groupFlag = (rollout: number | null = 100) =>
    flag('group-flag', {
      aggregation_group_type_index: 0,
      groups: [
        {
          properties: [{ key: 'name', value: ['Project Name 1'], type: 'group', group_type_index: 0 }],
          rollout_percentage: rollout,
        },
      ],
    });
  const companyProps = { company: { name: 'Project Name 1' } };

  it('is off with no_group_type when the group is not in the request', () => {
    const r = evaluateFlag(groupFlag(), ctx({ groupProperties: companyProps }));
    expect(r).toMatchObject({ enabled: false, value: false });
    expect(r.reason.code).toBe('no_group_type');
    expect(r.reason.description).toBe('No group type');
    expect(evaluateFlag(groupFlag(), ctx({ groups: { company: '' } })).reason.code).toBe('no_group_type');
  });

  it('is off when the group type index is not mapped to a type name', () => {
    const r = evaluateFlag(groupFlag(), ctx({ groups: { company: 'acme' }, groupTypeMapping: {} }));
    expect(r.reason.code).toBe('no_group_type');
  });

  it('matches group properties and buckets on the group key, not the person', () => {
    const key = idWhere('group-flag', (h) => h <= 0.35, 'company-');
    const outside = idWhere('group-flag', (h) => h > 0.35, 'company-');
    for (const distinctId of ['u1', 'u2', 'u3']) {
      const base = { distinctId, groupProperties: companyProps };
      expect(evaluateFlag(groupFlag(35), ctx({ ...base, groups: { company: key } })).enabled).toBe(true);
      expect(evaluateFlag(groupFlag(35), ctx({ ...base, groups: { company: outside } })).reason.code).toBe(
        'out_of_rollout_bound',
      );
    }
    const otherName = ctx({ groups: { company: key }, groupProperties: { company: { name: 'Project Name 2' } } });
    expect(evaluateFlag(groupFlag(35), otherName).reason.code).toBe('no_condition_match');
  });

  it('picks variants on the group key and exposes $group_key', () => {
    const f = flag('gv', {
      aggregation_group_type_index: 1,
      groups: [{ properties: [{ key: '$group_key', value: 'p-9' }] }],
      multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
    });
    const expected = flagHash('gv', 'p-9', 'variant') < 0.5 ? 'a' : 'b';
    expect(evaluateFlag(f, ctx({ distinctId: 'x', groups: { project: 'p-9' } })).variant).toBe(expected);
    expect(evaluateFlag(f, ctx({ distinctId: 'y', groups: { project: 'p-9' } })).variant).toBe(expected);
    expect(evaluateFlag(f, ctx({ groups: { project: 'p-8' } })).enabled).toBe(false);
  });

  it('person-typed filters in a group flag still read person properties', () => {
    const f = flag('mixed', {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: 'email', operator: 'icontains', value: '@acme', type: 'person' }] }],
    });
    const base = { groups: { company: 'acme' } };
    expect(evaluateFlag(f, ctx({ ...base, personProperties: { email: 'a@acme.io' } })).enabled).toBe(true);
    expect(evaluateFlag(f, ctx({ ...base, personProperties: { email: 'a@other.io' } })).enabled).toBe(false);
  });

  it('a set may aggregate differently from the flag (mixed targeting)', () => {
    const f = flag('per-set', {
      groups: [
        { properties: [{ key: 'tier', value: 'gold' }], aggregation_group_type_index: 0 },
        { properties: [{ key: 'beta', value: true }] },
      ],
    });
    const gold = ctx({ groups: { company: 'acme' }, groupProperties: { company: { tier: 'gold' } } });
    expect(evaluateFlag(f, gold).reason).toMatchObject({ code: 'condition_match', condition_index: 0 });
    const beta = ctx({ personProperties: { beta: 'true' } });
    expect(evaluateFlag(f, beta).reason).toMatchObject({ code: 'condition_match', condition_index: 1 });
    expect(evaluateFlag(f, ctx()).reason).toMatchObject({ code: 'no_condition_match', condition_index: 1 });
  });
});

describe('early access (super_groups / feature_enrollment)', () => {
  const superFlag = flag('beta-feature', {
    groups: [{ properties: [{ key: 'plan', value: 'never' }] }],
    super_groups: [
      { properties: [{ key: '$feature_enrollment/beta-feature', value: ['true'], operator: 'exact', type: 'person' }] },
    ],
    payloads: { true: '"early"' },
  });

  it('an opted-in person gets the flag before the normal sets are tried', () => {
    const r = evaluateFlag(superFlag, ctx({ personProperties: { '$feature_enrollment/beta-feature': true } }));
    expect(r).toMatchObject({ enabled: true, value: true, variant: null, payload: '"early"' });
    expect(r.reason).toEqual({ code: 'super_condition_value', condition_index: 0, description: 'Super condition value' });
  });

  it('an opt-out is final too', () => {
    const r = evaluateFlag(superFlag, ctx({ personProperties: { '$feature_enrollment/beta-feature': false } }));
    expect(r).toMatchObject({ enabled: false, reason: { code: 'super_condition_value' } });
  });

  it('without an enrollment property the normal sets decide', () => {
    expect(evaluateFlag(superFlag, ctx({ personProperties: { plan: 'never' } })).reason.code).toBe('condition_match');
    expect(evaluateFlag(superFlag, ctx()).reason.code).toBe('no_condition_match');
  });

  it('supports the feature_enrollment: true form', () => {
    const f = flag('ea', { groups: [], feature_enrollment: true });
    const on = evaluateFlag(f, ctx({ personProperties: { '$feature_enrollment/ea': 'true' } }));
    expect(on).toMatchObject({ enabled: true, reason: { code: 'super_condition_value' } });
    expect(evaluateFlag(f, ctx()).reason.code).toBe('no_condition_match');
  });
});

describe('experience continuity', () => {
  const continuity = (ensure: boolean) =>
    flag(
      'eec',
      {
        groups: [{ properties: [], rollout_percentage: 50 }],
        multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
      },
      { ensure_experience_continuity: ensure },
    );

  it('buckets on the hash key override for flags that ask for it', () => {
    for (let i = 0; i < 20; i++) {
      const anon = `anon-${i}`;
      const asAnon = evaluateFlag(continuity(true), ctx({ distinctId: anon }));
      const identified = evaluateFlag(continuity(true), ctx({ distinctId: `user-${i}`, hashKeyOverride: anon }));
      expect(identified.value).toBe(asAnon.value);
    }
  });

  it('ignores the override for other flags, and a null override', () => {
    for (let i = 0; i < 20; i++) {
      const plain = evaluateFlag(continuity(false), ctx({ distinctId: `user-${i}` }));
      const withOverride = evaluateFlag(continuity(false), ctx({ distinctId: `user-${i}`, hashKeyOverride: 'anon' }));
      expect(withOverride.value).toBe(plain.value);
      const nullOverride = evaluateFlag(continuity(true), ctx({ distinctId: `user-${i}`, hashKeyOverride: null }));
      expect(nullOverride.value).toBe(evaluateFlag(continuity(true), ctx({ distinctId: `user-${i}` })).value);
    }
  });
});

describe('evaluateAll', () => {
  const always = (key: string, extra: Partial<FlagDefinition> = {}) =>
    flag(key, { groups: [{ properties: [] }] }, extra);
  const reads = (key: string, property: string) =>
    flag(key, { groups: [{ properties: [{ key: property, operator: 'is_set', value: 'is_set' }] }] });

  it('returns every non-deleted flag in definition order', () => {
    const result = evaluateAll([always('a'), always('b', { deleted: true }), always('c', { active: false })], ctx());
    expect(Object.keys(result.flags)).toEqual(['a', 'c']);
    expect(result.flags.c.reason.code).toBe('flag_disabled');
    expect(result.errorsWhileComputingFlags).toBe(false);
  });

  it('limits evaluation to flagKeys when given', () => {
    const result = evaluateAll([always('a'), always('b'), always('c')], ctx(), { flagKeys: ['c', 'a', 'zzz'] });
    expect(Object.keys(result.flags)).toEqual(['a', 'c']);
  });

  it('leaves out a flag whose property lookup throws and flags the error', () => {
    const personProperties = Object.defineProperty({ ok: 1 }, 'boom', {
      enumerable: true,
      get() {
        throw new Error('lookup failed');
      },
    });
    const result = evaluateAll([reads('first', 'ok'), reads('broken', 'boom'), always('last')], ctx({ personProperties }));
    expect(Object.keys(result.flags)).toEqual(['first', 'last']);
    expect(result.errorsWhileComputingFlags).toBe(true);
    expect(() => evaluateFlag(reads('broken', 'boom'), ctx({ personProperties }))).toThrow('lookup failed');
  });

  it('keeps a flag keyed "__proto__" as an ordinary entry', () => {
    const result = evaluateAll([always('__proto__')], ctx());
    expect(Object.keys(result.flags)).toEqual(['__proto__']);
  });

  it('is pure: same input, same output, inputs untouched', () => {
    const flags = [always('a'), reads('b', 'x')];
    const context = ctx({ personProperties: { x: 1 } });
    const snapshot = JSON.stringify([flags, { ...context, now: context.now.toISOString() }]);
    const first = evaluateAll(flags, context);
    expect(evaluateAll(flags, context)).toEqual(first);
    expect(JSON.stringify([flags, { ...context, now: context.now.toISOString() }])).toBe(snapshot);
  });
});
