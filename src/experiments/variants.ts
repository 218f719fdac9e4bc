import { validationError } from '../errors';
import type { FlagFilters, Variant } from '../flags/types';

/** PostHog's default split when `parameters.feature_flag_variants` is absent or empty. */
export const DEFAULT_VARIANTS: readonly Variant[] = [
  { key: 'control', name: 'Control Group', rollout_percentage: 50 },
  { key: 'test', name: 'Test Variant', rollout_percentage: 50 },
];

export const MAX_VARIANTS = 20;

const asObject = (v: unknown): Record<string, unknown> | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** The raw `feature_flag_variants` of a parameters value (undefined when not given). */
export function rawVariantsOf(parameters: unknown): unknown {
  return asObject(parameters)?.feature_flag_variants;
}

/**
 * The experiment's variants, checked with PostHog's rules and messages (compat §4): at most 20,
 * one of them `control`, unique keys, percentages summing to 100. Absent or empty: control/test 50/50.
 */
export function experimentVariants(parameters: unknown): Variant[] {
  const raw = rawVariantsOf(parameters);
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) return DEFAULT_VARIANTS.map((v) => ({ ...v }));
  if (!Array.isArray(raw)) throw validationError('feature_flag_variants must be a list of variants.', 'parameters');
  if (raw.length > MAX_VARIANTS) throw validationError('Feature flag variants must be less than 21', 'parameters');
  const variants = raw.map((item, i): Variant => {
    const v = asObject(item);
    const key = v?.key;
    const pct = v?.rollout_percentage;
    if (typeof key !== 'string' || key === '') throw validationError(`Variant ${i + 1} needs a non-empty string key.`, 'parameters');
    if (typeof pct !== 'number' || !Number.isFinite(pct) || pct < 0 || pct > 100)
      throw validationError(`Variant "${key}" needs a rollout_percentage between 0 and 100.`, 'parameters');
    const name = typeof v?.name === 'string' ? v.name : null;
    return name === null ? { key, rollout_percentage: pct } : { key, name, rollout_percentage: pct };
  });
  if (!variants.some((v) => v.key === 'control')) throw validationError('Feature flag variants must contain a control variant', 'parameters');
  if (variants.length < 2) throw validationError('Feature flag variants must contain at least one test variant besides control', 'parameters');
  if (new Set(variants.map((v) => v.key)).size !== variants.length)
    throw validationError('Invalid variant definitions: Variant keys must be unique.', 'parameters');
  const sum = variants.reduce((s, v) => s + v.rollout_percentage, 0);
  if (Math.abs(sum - 100) > 1e-9)
    throw validationError('Invalid variant definitions: Variant rollout percentages must sum to 100.', 'parameters');
  return variants;
}

/** `parameters.aggregation_group_type_index` (group experiments), checked for shape only. */
export function aggregationIndexOf(parameters: unknown): number | null {
  const value = asObject(parameters)?.aggregation_group_type_index;
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 4)
    throw validationError('aggregation_group_type_index must be an integer from 0 to 4.', 'parameters');
  return value;
}

/** The linked flag's filters (compat §4): everyone in the rollout, split by the variants. */
export function experimentFlagFilters(parameters: unknown, groups?: FlagFilters['groups']): FlagFilters {
  return {
    groups: groups ?? [{ properties: [], rollout_percentage: 100 }],
    multivariate: { variants: experimentVariants(parameters) },
    aggregation_group_type_index: aggregationIndexOf(parameters),
  };
}

/** Variant keys of a flag's filters, in order (the experiment's variants as served). */
export function variantKeysOf(filters: Record<string, unknown>): string[] {
  const variants = asObject(filters.multivariate)?.variants;
  return Array.isArray(variants) ? variants.map((v) => String(asObject(v)?.key)) : [];
}

/**
 * After launch the variants are frozen (PostHog: same number, same keys). Only a `parameters`
 * value that names `feature_flag_variants` is a change of variants.
 */
export function checkVariantsFrozen(launched: boolean, current: readonly string[], nextParameters: unknown): void {
  if (!launched) return;
  const raw = rawVariantsOf(nextParameters);
  if (raw === undefined) return;
  const next = Array.isArray(raw) ? raw.map((v) => asObject(v)?.key) : [];
  const same = next.length === current.length && current.every((key) => next.filter((k) => k === key).length === 1);
  if (!same) throw validationError("Can't update feature_flag_variants on Experiment", 'parameters');
}
