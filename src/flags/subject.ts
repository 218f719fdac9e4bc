import { withInitialTwins } from './initial-properties';
import { readerFor, type PropertyReader } from './operators';
import { RegexBudget } from './regex-budget';
import type { EvaluationContext } from './types';

/**
 * What a flag is evaluated against: the person, the groups named in the request, and the ids
 * each kind of aggregation buckets on. Property reads stay lazy so that a failing lookup only
 * affects the flags that actually read that property.
 */
export interface Subject {
  person: PropertyReader;
  /** Properties of the group of this type index ({} when the type or group is unknown). */
  group(index: number): PropertyReader;
  /** The request's group key for this type index, or null when not given. */
  groupKey(index: number): string | null;
  /** Id person-aggregated sets bucket on, honouring experience continuity when the flag asks. */
  personBucket(continuity: boolean): string;
  cohorts: ReadonlySet<number> | undefined;
  now: Date;
  /** The regex work the evaluation may still do, shared by all its flags (regex-budget.ts). */
  regexBudget: RegexBudget;
}

const NOTHING: PropertyReader = () => ({ found: false, value: undefined });

// Adds a computed property only when the stored/request properties do not already carry it.
function withFallback(read: PropertyReader, key: string, value: string): PropertyReader {
  return (wanted) => {
    const hit = read(wanted);
    return hit.found || wanted !== key ? hit : { found: true, value };
  };
}

export function subjectOf(ctx: EvaluationContext): Subject {
  const groupKey = (index: number): string | null => {
    const typeName = ctx.groupTypeMapping[index];
    if (typeName === undefined) return null;
    const key: unknown = ctx.groups[typeName];
    if (key === undefined || key === null || key === '') return null;
    return String(key);
  };
  return {
    // Person properties only: the flags service fills `$initial_*` twins on the person's merged
    // (stored + request) properties, never on group properties.
    person: withInitialTwins(withFallback(readerFor(ctx.personProperties), 'distinct_id', ctx.distinctId)),
    group(index) {
      const typeName = ctx.groupTypeMapping[index];
      const key = groupKey(index);
      const props = typeName === undefined ? undefined : ctx.groupProperties[typeName];
      const read = props ? readerFor(props) : NOTHING;
      return key === null ? read : withFallback(read, '$group_key', key);
    },
    groupKey,
    personBucket(continuity) {
      return continuity && ctx.hashKeyOverride ? ctx.hashKeyOverride : ctx.distinctId;
    },
    cohorts: ctx.personCohorts,
    now: ctx.now,
    // A subject is made once per evaluateAll, that is once per request: so is its budget.
    regexBudget: ctx.regexBudget ?? new RegexBudget(),
  };
}
