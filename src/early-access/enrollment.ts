import type { EarlyAccessStage } from '../../streams';
import type { FlagFilters } from '../flags/types';

/**
 * The stages in which opting in turns the flag on. PostHog has moved this set over time (compat §8);
 * its current code enrolls in alpha, beta and general availability, not in concept (interest only).
 */
export const ENROLLING_STAGES: readonly EarlyAccessStage[] = ['alpha', 'beta', 'general-availability'];

export const enrollmentProperty = (flagKey: string) => `$feature_enrollment/${flagKey}`;

/** PostHog's legacy, widely deployed form: one super group over the person's opt-in property. */
export const enrollmentGroups = (flagKey: string) => [
  { properties: [{ key: enrollmentProperty(flagKey), type: 'person', operator: 'exact', value: ['true'] }], rollout_percentage: 100 },
];

/** The flag's filters with enrollment on or off; everything else kept. */
export function withEnrollment(filters: Record<string, unknown>, flagKey: string, on: boolean): Record<string, unknown> {
  const { super_groups: _s, feature_enrollment: _f, ...rest } = filters;
  return on ? { ...rest, super_groups: enrollmentGroups(flagKey) } : rest;
}

/** A new feature's flag: nobody by release conditions, the enrolled by super group when the stage enrolls. */
export function newFeatureFlagFilters(flagKey: string, stage: EarlyAccessStage): FlagFilters {
  const base = { groups: [{ properties: [], rollout_percentage: 0, variant: null }] };
  return withEnrollment(base, flagKey, ENROLLING_STAGES.includes(stage)) as FlagFilters;
}

/** General availability with rollout_to_all: everyone by release conditions, no enrollment. */
export function releasedToAll(filters: Record<string, unknown>, flagKey: string): Record<string, unknown> {
  return { ...withEnrollment(filters, flagKey, false), groups: [{ properties: [], rollout_percentage: 100 }] };
}

/** Django's slugify, which PostHog derives the flag key with. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[^\x00-\x7f]/g, '')
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/[-\s]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
}
