/**
 * Shapes of stored flag definitions (PostHog's `filters` JSON) and of evaluation results.
 * Definitions arrive from storage or the API, so most fields are optional and loosely typed.
 */
import type { RegexBudget } from './regex-budget';

export interface PropertyFilter {
  key: string;
  value?: unknown;
  operator?: string | null;
  /** `person`, `group`, `cohort`; anything else is read like the flag's own aggregation. */
  type?: string | null;
  group_type_index?: number | null;
}

export interface ConditionSet {
  properties?: PropertyFilter[] | null;
  /** null or absent means 100%. */
  rollout_percentage?: number | null;
  variant?: string | null;
  /** Mixed targeting: overrides the flag-level aggregation for this set only. */
  aggregation_group_type_index?: number | null;
}

export interface Variant {
  key: string;
  name?: string | null;
  rollout_percentage: number;
}

export interface FlagFilters {
  groups?: ConditionSet[] | null;
  multivariate?: { variants: Variant[] } | null;
  /** JSON-encoded strings keyed by `"true"` or a variant key. */
  payloads?: Record<string, unknown> | null;
  aggregation_group_type_index?: number | null;
  /** Early-access enrollment (legacy form): only the first set is used. */
  super_groups?: ConditionSet[] | null;
  /** Early-access enrollment (newer form): reads `$feature_enrollment/<key>` directly. */
  feature_enrollment?: boolean | null;
  /**
   * When a set's properties match but its rollout leaves the id out, the flag is false at once
   * (reason `out_of_rollout_bound`, that set's index) instead of trying the later sets.
   */
  early_exit?: boolean | null;
}

export interface FlagDefinition {
  id: number;
  key: string;
  name?: string | null;
  active: boolean;
  deleted?: boolean;
  ensure_experience_continuity: boolean;
  version?: number | null;
  filters: FlagFilters;
}

export interface EvaluationContext {
  distinctId: string;
  personProperties: Record<string, unknown>;
  /** Group type name -> group key, as sent by the client. */
  groups: Record<string, string>;
  /** Group type name -> that group's properties. */
  groupProperties: Record<string, Record<string, unknown>>;
  /** Group type index -> group type name. */
  groupTypeMapping: Record<number, string>;
  /** Experience continuity: bucket flags that ask for it on this id instead of distinctId. */
  hashKeyOverride?: string | null;
  /** Ids of the cohorts the person belongs to; membership is computed elsewhere. */
  personCohorts?: ReadonlySet<number>;
  /** Anchor for relative date filters such as `-7d`. */
  now: Date;
  /** The request's regex budget; a fresh one (REQUEST_REGEX_UNITS) per evaluation when absent. */
  regexBudget?: RegexBudget;
}

export type ReasonCode =
  | 'condition_match'
  | 'no_condition_match'
  | 'out_of_rollout_bound'
  | 'no_group_type'
  | 'super_condition_value'
  | 'flag_disabled';

export interface EvaluationReason {
  code: ReasonCode;
  condition_index: number | null;
  description: string;
}

export interface FlagEvaluation {
  key: string;
  enabled: boolean;
  variant: string | null;
  /** What `/decide` v2/v3 report: the variant key, else `enabled`. */
  value: boolean | string;
  reason: EvaluationReason;
  /** JSON-encoded payload for the served value, or null. */
  payload: string | null;
  /** Flag id and version, echoed in the `/flags` v2 metadata. */
  id: number;
  version: number;
}

export interface EvaluateAllResult {
  /** Keyed by flag key, in definition order. */
  flags: Record<string, FlagEvaluation>;
  /** The same evaluations as a list, in definition order (cheaper to walk than a 50-key dictionary). */
  list?: FlagEvaluation[];
  errorsWhileComputingFlags: boolean;
}
