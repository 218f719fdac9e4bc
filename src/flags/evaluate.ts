import { evaluateSet, type SetOutcome } from './conditions';
import { enrollmentDecision } from './enrollment';
import { subjectOf, type Subject } from './subject';
import type {
  EvaluateAllResult,
  EvaluationContext,
  EvaluationReason,
  FlagDefinition,
  FlagEvaluation,
  ReasonCode,
} from './types';
import { payloadFor, variantFor } from './variants';

const DESCRIPTIONS: Record<Exclude<ReasonCode, 'condition_match'>, string> = {
  no_condition_match: 'No matching condition set',
  out_of_rollout_bound: 'Out of rollout bound',
  no_group_type: 'No group type',
  super_condition_value: 'Super condition value',
  flag_disabled: 'Feature flag is disabled',
};

// When no set wins, the most telling failure is reported, as the flags service does: being
// targeted but outside the rollout beats not being targeted, which beats a missing group.
const PRIORITY: Record<ReasonCode, number> = {
  super_condition_value: 6,
  condition_match: 4,
  out_of_rollout_bound: 3,
  no_condition_match: 2,
  no_group_type: 1,
  flag_disabled: 0,
};

const OUTCOME_REASON: Record<SetOutcome, ReasonCode> = {
  match: 'condition_match',
  no_match: 'no_condition_match',
  out_of_rollout: 'out_of_rollout_bound',
};

// A request builds one reason per flag from a handful of (code, index) pairs: each is made once
// and shared (frozen, since every evaluation hands out the same object). Looked up by code, then
// by index + 1 (slot 0 is "no index"), so a lookup builds no key.
const reasons: Record<ReasonCode, EvaluationReason[]> = {
  condition_match: [],
  no_condition_match: [],
  out_of_rollout_bound: [],
  no_group_type: [],
  super_condition_value: [],
  flag_disabled: [],
};
function reason(code: ReasonCode, conditionIndex: number | null): EvaluationReason {
  const slot = conditionIndex === null ? 0 : conditionIndex + 1;
  const byIndex = reasons[code];
  let hit = byIndex[slot];
  if (hit === undefined) {
    const description =
      code === 'condition_match' ? `Matched condition set ${(conditionIndex ?? 0) + 1}` : DESCRIPTIONS[code];
    hit = byIndex[slot] = Object.freeze({ code, condition_index: conditionIndex, description });
  }
  return hit;
}

// An evaluation follows from the definition, the reason and the served value alone, so each flag
// has a handful of possible evaluations: each is built once (with its payload) and shared, frozen.
// The answer writer keys its serialised fragments on these objects. Keyed weakly by definition: a
// changed flag is a new definition object, and the old one's evaluations go with it.
type ByServed = Map<string | boolean, FlagEvaluation>;
const evaluations = new WeakMap<FlagDefinition, Map<EvaluationReason, ByServed>>();

function result(
  flag: FlagDefinition,
  enabled: boolean,
  variant: string | null,
  why: EvaluationReason,
): FlagEvaluation {
  let byReason = evaluations.get(flag);
  if (byReason === undefined) evaluations.set(flag, (byReason = new Map()));
  let byServed = byReason.get(why);
  if (byServed === undefined) byReason.set(why, (byServed = new Map()));
  const value = enabled ? (variant ?? true) : false;
  let hit = byServed.get(value);
  if (hit === undefined) {
    hit = Object.freeze({
      key: flag.key,
      enabled,
      variant: enabled ? variant : null,
      value,
      reason: why,
      payload: enabled ? payloadFor(flag.filters ?? {}, variant) : null,
      id: flag.id,
      version: flag.version ?? 0,
    });
    byServed.set(value, hit);
  }
  return hit;
}

function evaluateOn(flag: FlagDefinition, subject: Subject): FlagEvaluation {
  if (!flag.active || flag.deleted) return result(flag, false, null, reason('flag_disabled', null));
  const filters = flag.filters ?? {};
  const personBucket = subject.personBucket(flag.ensure_experience_continuity);

  const enrolled = enrollmentDecision(flag, subject, personBucket);
  if (enrolled !== null) return result(flag, enrolled, null, reason('super_condition_value', 0));

  const flagAggregation = filters.aggregation_group_type_index ?? null;
  const sets = filters.groups;
  if (!sets || sets.length === 0) {
    const missingGroup = flagAggregation !== null && subject.groupKey(flagAggregation) === null;
    return result(flag, false, null, reason(missingGroup ? 'no_group_type' : 'no_condition_match', null));
  }

  // The best failure so far (none yet: index -1).
  // Stryker disable next-line StringLiteral: equivalent, the first set always replaces it (bestIndex < 0)
  let bestCode: ReasonCode = 'no_condition_match';
  let bestIndex = -1;
  for (let index = 0; index < sets.length; index++) {
    const set = sets[index];
    const aggregation =
      set.aggregation_group_type_index !== undefined ? set.aggregation_group_type_index : flagAggregation;
    const bucket = aggregation === null ? personBucket : subject.groupKey(aggregation);
    const code: ReasonCode =
      bucket === null ? 'no_group_type' : OUTCOME_REASON[evaluateSet(flag.key, set, { subject, aggregation }, bucket)];
    // Stryker disable next-line ConditionalExpression: equivalent, a set only matches with a bucket (kept for the type checker)
    if (code === 'condition_match' && bucket !== null) {
      const variant = variantFor(flag.key, filters, set.variant, bucket);
      return result(flag, true, variant, reason(code, index));
    }
    // `early_exit`: targeted but outside this set's rollout is final; later sets are not tried.
    if (code === 'out_of_rollout_bound' && filters.early_exit === true) {
      return result(flag, false, null, reason(code, index));
    }
    // Ties go to the later set, matching the flags service's report.
    if (bestIndex < 0 || PRIORITY[code] >= PRIORITY[bestCode]) {
      bestCode = code;
      bestIndex = index;
    }
  }
  // Stryker disable next-line ConditionalExpression: equivalent, with no sets the flag returned above, so some set set bestIndex
  return result(flag, false, null, reason(bestCode, bestIndex < 0 ? null : bestIndex));
}

/** Evaluates one flag for one person (and their groups). Throws if a property lookup throws. */
export function evaluateFlag(flag: FlagDefinition, ctx: EvaluationContext): FlagEvaluation {
  return evaluateOn(flag, subjectOf(ctx));
}

export interface EvaluateAllOptions {
  /** Only evaluate these keys (the request's `flag_keys_to_evaluate`). */
  flagKeys?: readonly string[];
}

/**
 * Evaluates every non-deleted flag. A flag whose evaluation throws is left out and
 * `errorsWhileComputingFlags` is set; the others are still returned.
 */
export function evaluateAll(
  flags: readonly FlagDefinition[],
  ctx: EvaluationContext,
  opts: EvaluateAllOptions = {},
): EvaluateAllResult {
  const wanted = opts.flagKeys ? new Set(opts.flagKeys) : null;
  const subject = subjectOf(ctx);
  const list: FlagEvaluation[] = [];
  let errorsWhileComputingFlags = false;
  for (const flag of flags) {
    if (flag.deleted || (wanted && !wanted.has(flag.key))) continue;
    try {
      list.push(evaluateOn(flag, subject));
    } catch {
      errorsWhileComputingFlags = true;
    }
  }
  return withFlagsByKey(list, errorsWhileComputingFlags);
}

/**
 * The result. Its by-key dictionary is built on first read (the /flags v2 answer only walks the
 * list), by a getter on the class, not on each result: a getter in an object literal gives every
 * result its own accessor pair, which V8 allocates in the old generation, and from there it kept
 * the result's young objects (its closure, the list) alive through every scavenge until the next
 * full collection. Under load that promoted each answer's garbage and made the collector the
 * service's tail. A copy made by spreading has `list` and `errorsWhileComputingFlags` but not `flags`.
 */
class FlagResults implements EvaluateAllResult {
  #byKey: Record<string, FlagEvaluation> | undefined;

  constructor(
    readonly list: FlagEvaluation[],
    readonly errorsWhileComputingFlags: boolean,
  ) {}

  get flags(): Record<string, FlagEvaluation> {
    if (this.#byKey === undefined) {
      // Null prototype: flag keys are user data and "__proto__" must stay an ordinary key.
      this.#byKey = Object.create(null) as Record<string, FlagEvaluation>;
      for (const evaluation of this.list) this.#byKey[evaluation.key] = evaluation;
    }
    return this.#byKey;
  }
}

function withFlagsByKey(list: FlagEvaluation[], errorsWhileComputingFlags: boolean): FlagResults {
  return new FlagResults(list, errorsWhileComputingFlags);
}
