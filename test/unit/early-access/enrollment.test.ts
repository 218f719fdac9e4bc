import { describe, expect, it } from 'vitest';
import { newFeatureFlagFilters, slugify, withEnrollment } from '../../../src/early-access';

describe('early access flag filters', () => {
  it('derives the key as Django slugify does', () => {
    expect(slugify('Dark Mode!')).toBe('dark-mode');
    expect(slugify('  Crème brûlée — v2 ')).toBe('creme-brulee-v2');
    expect(slugify('a_b  c--d')).toBe('a_b-c-d');
    expect(slugify('!!!')).toBe('');
  });

  it('enrolls through one super group only in alpha, beta and general availability', () => {
    const sg = [{ properties: [{ key: '$feature_enrollment/k', type: 'person', operator: 'exact', value: ['true'] }], rollout_percentage: 100 }];
    for (const stage of ['alpha', 'beta', 'general-availability'] as const) expect(newFeatureFlagFilters('k', stage).super_groups).toEqual(sg);
    for (const stage of ['draft', 'concept', 'archived'] as const) expect(newFeatureFlagFilters('k', stage).super_groups).toBeUndefined();
    expect(newFeatureFlagFilters('k', 'beta').groups).toEqual([{ properties: [], rollout_percentage: 0, variant: null }]);
  });

  it('turning enrollment off removes both stored forms and keeps the rest', () => {
    const filters = { groups: [{ properties: [], rollout_percentage: 10 }], payloads: { true: '1' }, super_groups: [], feature_enrollment: true };
    expect(withEnrollment(filters, 'k', false)).toEqual({ groups: [{ properties: [], rollout_percentage: 10 }], payloads: { true: '1' } });
  });
});
