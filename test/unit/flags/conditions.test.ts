// Condition sets (conditions.ts): which entity a filter reads, the rollout boundary, sets without
// filters. Written against surviving mutants (docs/mutation.md).
import { describe, expect, it } from 'vitest';
import { evaluateFlag, flagHash } from '../../../src/flags';
import { ctx, flag } from './helpers';

describe('which entity a filter reads', () => {
  const company = { groups: { company: 'acme' }, groupProperties: { company: { tier: 'gold' } } };

  it('a group filter in a person set reads the group its group_type_index names', () => {
    const f = flag('g', { groups: [{ properties: [{ key: 'tier', value: 'gold', type: 'group', group_type_index: 0 }] }] });
    expect(evaluateFlag(f, ctx(company)).enabled).toBe(true);
    // The same property on the person does not count.
    expect(evaluateFlag(f, ctx({ personProperties: { tier: 'gold' } })).enabled).toBe(false);
  });

  it('an explicit group_type_index wins over the set aggregation', () => {
    const f = flag('g2', {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: 'tier', value: 'gold', type: 'group', group_type_index: 1 }] }],
    });
    const both = {
      groups: { company: 'acme', project: 'p1' },
      groupProperties: { company: { tier: 'silver' }, project: { tier: 'gold' } },
    };
    expect(evaluateFlag(f, ctx(both)).enabled).toBe(true);
    const swapped = { ...both, groupProperties: { company: { tier: 'gold' }, project: { tier: 'silver' } } };
    expect(evaluateFlag(f, ctx(swapped)).enabled).toBe(false);
  });

  it('a group filter without a group_type_index reads the set aggregation', () => {
    const f = flag('g3', {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: 'tier', value: 'gold', type: 'group' }] }],
    });
    expect(evaluateFlag(f, ctx(company)).enabled).toBe(true);
  });

  it('a group filter with no index in a person set reads nothing: the property is not set', () => {
    const set = (operator: string) => flag(`g4-${operator}`, { groups: [{ properties: [{ key: 'tier', type: 'group', operator }] }] });
    const subject = ctx({ ...company, personProperties: { tier: 'gold' } });
    expect(evaluateFlag(set('is_not_set'), subject).enabled).toBe(true);
    expect(evaluateFlag(set('is_set'), subject).enabled).toBe(false);
  });
});

describe('rollout', () => {
  it('is h(key, id) <= pct/100 at the boundary itself', () => {
    const id = 'boundary-user';
    const h = flagHash('edge', id);
    const pct = h * 100;
    expect(pct / 100).toBe(h); // the boundary is representable, so <= and < differ here
    const f = flag('edge', { groups: [{ properties: [], rollout_percentage: pct }] });
    expect(evaluateFlag(f, ctx({ distinctId: id })).enabled).toBe(true);
  });

  it('a set without properties (null or absent) targets everyone', () => {
    const f = flag('all', { groups: [{ properties: null }, { rollout_percentage: 100 }] });
    expect(evaluateFlag(f, ctx()).reason).toMatchObject({ code: 'condition_match', condition_index: 0 });
    const g = flag('all2', { groups: [{ rollout_percentage: 100 }] });
    expect(evaluateFlag(g, ctx()).enabled).toBe(true);
  });
});
