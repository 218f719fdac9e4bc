import { hashMemo } from './hash-memo';
import { matchCohort, matchFilter, type PropertyReader } from './operators';
import type { Subject } from './subject';
import type { ConditionSet, PropertyFilter } from './types';

export type SetOutcome = 'match' | 'no_match' | 'out_of_rollout';

/** Where one set reads its properties: the person, or the group it aggregates on. */
export interface SetScope {
  subject: Subject;
  /** Group type index the set aggregates on; null for person sets. */
  aggregation: number | null;
}

export function readerForFilter(filter: PropertyFilter, scope: SetScope): PropertyReader {
  const { subject, aggregation } = scope;
  if (filter.type === 'person') return subject.person;
  if (filter.type === 'group') {
    const index = filter.group_type_index ?? aggregation;
    // Stryker disable next-line ConditionalExpression,ObjectLiteral,BooleanLiteral: equivalent, subject.group(null) reads nothing too, and a missing or undefined value reads as not set
    return index === null ? () => ({ found: false, value: undefined }) : subject.group(index);
  }
  // Filters without an explicit type read the entity the set aggregates on.
  return aggregation === null ? subject.person : subject.group(aggregation);
}

export function filterMatches(filter: PropertyFilter, scope: SetScope): boolean {
  if (filter.type === 'cohort') return matchCohort(filter, scope.subject.cohorts);
  return matchFilter(filter, readerForFilter(filter, scope), scope.subject.now, scope.subject.regexBudget);
}

/** Whether `bucket` falls inside a rollout percentage for this flag (null = everyone). */
export function inRollout(flagKey: string, bucket: string, rolloutPercentage: number | null | undefined): boolean {
  const pct = rolloutPercentage ?? 100;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, a shortcut: flagHash < 1, so the comparison below holds for pct >= 100 too
  if (pct >= 100) return true;
  return hashMemo.hash(flagKey, bucket, false) <= pct / 100;
}

/** All of a set's filters must match; then its rollout decides. */
export function evaluateSet(flagKey: string, set: ConditionSet, scope: SetScope, bucket: string): SetOutcome {
  const filters = set.properties;
  if (filters) for (let i = 0; i < filters.length; i++) if (!filterMatches(filters[i], scope)) return 'no_match';
  return inRollout(flagKey, bucket, set.rollout_percentage) ? 'match' : 'out_of_rollout';
}
