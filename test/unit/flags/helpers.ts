import { flagHash, type EvaluationContext, type FlagDefinition, type FlagFilters } from '../../../src/flags';

export const NOW = new Date('2024-01-10T12:00:00Z');

export function flag(key: string, filters: FlagFilters, extra: Partial<FlagDefinition> = {}): FlagDefinition {
  return { id: 7, key, active: true, ensure_experience_continuity: false, version: 3, filters, ...extra };
}

export function ctx(overrides: Partial<EvaluationContext> = {}): EvaluationContext {
  return {
    distinctId: 'user-1',
    personProperties: {},
    groups: {},
    groupProperties: {},
    groupTypeMapping: { 0: 'company', 1: 'project' },
    now: NOW,
    ...overrides,
  };
}

/** First id `prefix<n>` whose rollout hash for `key` satisfies `wanted`. */
export function idWhere(key: string, wanted: (hash: number) => boolean, prefix = 'id-'): string {
  for (let n = 0; n < 10_000; n++) {
    if (wanted(flagHash(key, `${prefix}${n}`))) return `${prefix}${n}`;
  }
  throw new Error('no such id');
}
