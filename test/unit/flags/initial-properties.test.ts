import { describe, expect, it } from 'vitest';
import { evaluateFlag, type PropertyFilter } from '../../../src/flags';
import { initialTwins } from '../../../src/flags/initial-properties';
import { ctx, flag } from './helpers';

// PostHog's flags service fills a missing `$initial_X` person property from X before matching
// (rust/feature-flags `populate_missing_initial_properties`, called on the merged stored + request
// person properties). These pin that rule: which keys, which direction, and what counts as missing.
const on = (filter: PropertyFilter) => flag('initial', { groups: [{ properties: [filter], rollout_percentage: 100 }] });
const enabled = (filter: PropertyFilter, personProperties: Record<string, unknown>) =>
  evaluateFlag(on(filter), ctx({ personProperties })).enabled;
const browserIs = (value: string): PropertyFilter => ({ key: '$initial_browser', value, operator: 'exact', type: 'person' });

describe('$initial_* person properties filled from their counterparts', () => {
  it('given a person with only $browser, when a flag targets $initial_browser, then it matches on $browser', () => {
    expect(enabled(browserIs('Chrome'), { $browser: 'Chrome' })).toBe(true);
    expect(enabled(browserIs('Firefox'), { $browser: 'Chrome' })).toBe(false);
    // The filled value behaves as a real property for every operator, the negative ones included.
    expect(enabled({ key: '$initial_browser', value: 'Chrome', operator: 'is_not', type: 'person' }, { $browser: 'Chrome' })).toBe(false);
    expect(enabled({ key: '$initial_browser', operator: 'is_set', value: 'is_set', type: 'person' }, { $browser: 'Chrome' })).toBe(true);
  });

  it('given a person with neither, when a flag targets $initial_browser, then the property is missing', () => {
    expect(enabled({ key: '$initial_browser', operator: 'is_not_set', value: 'is_not_set', type: 'person' }, { plan: 'pro' })).toBe(true);
    expect(enabled(browserIs('Chrome'), {})).toBe(false);
  });

  it('given both, when they differ, then the stored $initial_browser wins', () => {
    const person = { $browser: 'Chrome', $initial_browser: 'Firefox' };
    expect(enabled(browserIs('Firefox'), person)).toBe(true);
    expect(enabled(browserIs('Chrome'), person)).toBe(false);
  });

  it('given $initial_browser present as null, then it is kept (presence decides, not the value)', () => {
    const person = { $browser: 'Chrome', $initial_browser: null };
    expect(enabled(browserIs('Chrome'), person)).toBe(false);
    expect(enabled({ key: '$initial_browser', operator: 'is_set', value: 'is_set', type: 'person' }, person)).toBe(true);
  });

  it('given $browser present as null, then $initial_browser is filled with null (so it is set)', () => {
    const person = { $browser: null };
    expect(enabled({ key: '$initial_browser', operator: 'is_set', value: 'is_set', type: 'person' }, person)).toBe(true);
    expect(enabled({ key: '$initial_browser', operator: 'is_not_set', value: 'is_not_set', type: 'person' }, person)).toBe(false);
  });

  it('never fills the other way: $browser is not read from $initial_browser', () => {
    const person = { $initial_browser: 'Chrome' };
    expect(enabled({ key: '$browser', value: 'Chrome', operator: 'exact', type: 'person' }, person)).toBe(false);
    expect(enabled({ key: '$browser', operator: 'is_not_set', value: 'is_not_set', type: 'person' }, person)).toBe(true);
  });

  it('fills every listed key, naming the twin $initial_ + the key without its leading $', () => {
    const twins = initialTwins();
    expect(twins).toHaveLength(42);
    expect(twins).toContainEqual(['$initial_browser', '$browser']);
    expect(twins).toContainEqual(['$initial_utm_source', 'utm_source']);
    expect(twins).toContainEqual(['$initial__kx', '_kx']);
    expect(twins).toContainEqual(['$initial_raw_user_agent', '$raw_user_agent']);
    for (const [initial, counterpart] of twins) {
      const filter: PropertyFilter = { key: initial, value: 'v1', operator: 'exact', type: 'person' };
      expect(enabled(filter, { [counterpart]: 'v1' }), initial).toBe(true);
    }
  });

  it('does not fill keys outside PostHog’s list, even ones ingestion gives an $initial_ twin', () => {
    for (const key of ['utm_name', '$host', '$os_name', '$geoip_country_code', '$device', 'plan']) {
      const initial = `$initial_${key.replace(/^\$/, '')}`;
      const filter: PropertyFilter = { key: initial, value: 'v1', operator: 'exact', type: 'person' };
      expect(enabled(filter, { [key]: 'v1' }), initial).toBe(false);
    }
  });

  it('applies to person properties only: a group’s $browser does not fill its $initial_browser', () => {
    const groupFlag = flag('initial-group', {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: '$initial_browser', value: 'Chrome', type: 'group', group_type_index: 0 }], rollout_percentage: 100 }],
    });
    const base = { groups: { company: 'acme' } };
    expect(evaluateFlag(groupFlag, ctx({ ...base, groupProperties: { company: { $browser: 'Chrome' } } })).enabled).toBe(false);
    expect(evaluateFlag(groupFlag, ctx({ ...base, groupProperties: { company: { $initial_browser: 'Chrome' } } })).enabled).toBe(true);
  });

  it('an early-access super group on $initial_browser counts as relevant when only $browser is there', () => {
    // The flags service checks the super group's keys against the filled properties.
    const f = flag('initial-super', {
      groups: [{ properties: [], rollout_percentage: 100 }],
      super_groups: [{ properties: [browserIs('Chrome')], rollout_percentage: 100 }],
    });
    const r = evaluateFlag(f, ctx({ personProperties: { $browser: 'Firefox' } }));
    expect(r).toMatchObject({ enabled: false });
    expect(r.reason.code).toBe('super_condition_value');
    expect(evaluateFlag(f, ctx({ personProperties: {} })).reason.code).toBe('condition_match');
  });
});
