import { filterMatches, inRollout, readerForFilter, type SetScope } from './conditions';
import { flagHash } from './hash';
import { subjectOf, type Subject } from './subject';
import type { ConditionSet, EvaluationContext, FlagDefinition, FlagEvaluation, PropertyFilter } from './types';

/** One property filter of a condition set, with the value the person (or group) had. */
export interface FilterFacts {
  key: string;
  type: string | null;
  operator: string;
  value: unknown;
  /** Whether the person (or the set's group) has the property at all. */
  found: boolean;
  /** The value read (the cohort membership for a cohort filter); null when not found. */
  actual: unknown;
  matched: boolean;
}

export type SetOutcomeFacts = 'match' | 'no_match' | 'out_of_rollout' | 'no_group_type' | 'not_evaluated';

export interface ConditionFacts {
  index: number;
  rollout_percentage: number | null;
  aggregation_group_type_index: number | null;
  /** The id this set buckets on (the person's, or the group key), null when the group is not given. */
  bucketed_on: string | null;
  /** h(flag key, bucketed_on): in the rollout when ≤ rollout_percentage / 100. */
  hash: number | null;
  properties: FilterFacts[];
  outcome: SetOutcomeFacts;
  /** The variant the set forces, when it names one. */
  variant_override: string | null;
}

/** The facts that decided one flag for one person: what an auditor needs to redo the evaluation. */
export interface FlagFacts {
  id: number;
  version: number;
  active: boolean;
  distinct_id: string;
  /** Experience continuity: whether the flag asks for it, the hash key override found, and whether it was used. */
  continuity: { ensure_experience_continuity: boolean; hash_key_override: string | null; used: boolean };
  /** The id person-level sets bucket on: the override when used, else the distinct id. */
  person_bucket: string;
  /** Early-access enrollment decided the flag (the property and its value), or null. */
  enrollment: { property: string; found: boolean; actual: unknown } | null;
  conditions: ConditionFacts[];
  /** For a served variant: h(key, bucket, "variant") and the variants' ranges it fell in. */
  variant: { key: string; hash: number; ranges: { key: string; from: number; to: number }[] } | null;
}

function filterFacts(filter: PropertyFilter, scope: SetScope): FilterFacts {
  const cohort = filter.type === 'cohort';
  const read = cohort ? { found: scope.subject.cohorts !== undefined, value: scope.subject.cohorts?.has(Number(filter.value)) ?? false } : readerForFilter(filter, scope)(filter.key);
  return {
    key: filter.key,
    type: filter.type ?? null,
    operator: filter.operator ?? (cohort ? 'in' : 'exact'),
    value: filter.value ?? null,
    found: read.found && read.value !== undefined,
    actual: read.found && read.value !== undefined ? read.value : null,
    matched: filterMatches(filter, scope),
  };
}

function setFacts(flag: FlagDefinition, set: ConditionSet, index: number, subject: Subject, personBucket: string): Omit<ConditionFacts, 'outcome'> & { computed: SetOutcomeFacts } {
  const flagAggregation = flag.filters?.aggregation_group_type_index ?? null;
  const aggregation = set.aggregation_group_type_index !== undefined ? set.aggregation_group_type_index : flagAggregation;
  const bucket = aggregation === null ? personBucket : subject.groupKey(aggregation);
  const properties = (set.properties ?? []).map((f) => filterFacts(f, { subject, aggregation }));
  const computed: SetOutcomeFacts =
    bucket === null ? 'no_group_type' : properties.some((p) => !p.matched) ? 'no_match' : inRollout(flag.key, bucket, set.rollout_percentage) ? 'match' : 'out_of_rollout';
  return {
    index,
    rollout_percentage: set.rollout_percentage ?? null,
    aggregation_group_type_index: aggregation,
    bucketed_on: bucket,
    hash: bucket === null ? null : flagHash(flag.key, bucket),
    properties,
    variant_override: set.variant ?? null,
    computed,
  };
}

/**
 * The facts behind one flag's evaluation. The value and reason are the engine's own (`evaluation`,
 * from evaluateAll: the plain path `/flags` takes); these facts are recomputed beside it from the
 * same context, and mark the sets the engine never reached (after the deciding one) `not_evaluated`.
 */
export function explainFlag(flag: FlagDefinition, ctx: EvaluationContext, evaluation: FlagEvaluation): FlagFacts {
  const subject = subjectOf(ctx);
  const continuity = flag.ensure_experience_continuity;
  const personBucket = subject.personBucket(continuity);
  const override = ctx.hashKeyOverride ?? null;
  const filters = flag.filters ?? {};
  const enrollmentKey = filters.feature_enrollment === true ? `$feature_enrollment/${flag.key}` : null;
  const enrollmentRead = enrollmentKey === null ? null : subject.person(enrollmentKey);
  const decided = evaluation.reason.code === 'super_condition_value';
  const deciding = evaluation.reason.condition_index;
  const final = evaluation.reason.code === 'condition_match' || (evaluation.reason.code === 'out_of_rollout_bound' && filters.early_exit === true);
  const sets = decided || evaluation.reason.code === 'flag_disabled' ? [] : (filters.groups ?? []);
  const conditions = sets.map((set, index): ConditionFacts => {
    const { computed, ...facts } = setFacts(flag, set, index, subject, personBucket);
    return { ...facts, outcome: final && deciding !== null && index > deciding ? 'not_evaluated' : computed };
  });
  const variants = filters.multivariate?.variants ?? [];
  let variant: FlagFacts['variant'] = null;
  if (evaluation.variant !== null && deciding !== null && !decided) {
    const bucket = conditions[deciding]?.bucketed_on ?? personBucket;
    let from = 0;
    const ranges = variants.map((v) => {
      const range = { key: v.key, from, to: from + v.rollout_percentage / 100 };
      from = range.to;
      return range;
    });
    variant = { key: evaluation.variant, hash: flagHash(flag.key, bucket, 'variant'), ranges };
  }
  return {
    id: flag.id,
    version: flag.version ?? 0,
    active: flag.active,
    distinct_id: ctx.distinctId,
    continuity: { ensure_experience_continuity: continuity, hash_key_override: override, used: continuity && override !== null && personBucket === override },
    person_bucket: personBucket,
    enrollment: decided
      ? enrollmentKey !== null
        ? { property: enrollmentKey, found: enrollmentRead!.found, actual: enrollmentRead!.value ?? null }
        : { property: (filters.super_groups?.[0]?.properties ?? []).map((p) => p.key).join(','), found: true, actual: null }
      : null,
    conditions,
    variant,
  };
}
