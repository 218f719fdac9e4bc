import { z } from 'zod';
import { validationError } from '../../errors';
import type { FlagFilters } from '../types';

export const OPERATORS = [
  'exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'gt', 'gte', 'lt', 'lte',
  'is_set', 'is_not_set', 'is_date_before', 'is_date_after', 'is_date_exact',
  'starts_with', 'not_starts_with', 'ends_with', 'not_ends_with',
  'semver_eq', 'semver_neq', 'semver_gt', 'semver_gte', 'semver_lt', 'semver_lte',
  'semver_tilde', 'semver_caret', 'semver_wildcard', 'in', 'not_in',
] as const;

const PropertyFilter = z.looseObject({
  key: z.union([z.string().min(1), z.number()]).transform(String),
  value: z.unknown().optional(),
  operator: z.enum(OPERATORS).nullish(),
  type: z.enum(['person', 'group', 'cohort', 'flag']).default('person'),
  group_type_index: z.number().int().min(0).max(4).nullish(),
});

const ConditionSet = z.looseObject({
  properties: z.array(PropertyFilter).nullish().transform((p) => p ?? []),
  rollout_percentage: z.number().min(0).max(100).nullish(),
  variant: z.string().nullish(),
  aggregation_group_type_index: z.number().int().min(0).max(4).nullish(),
});

const Variant = z.looseObject({
  key: z.string().min(1),
  name: z.string().nullish(),
  rollout_percentage: z.number().min(0).max(100),
});

const FiltersSchema = z.looseObject({
  groups: z.array(ConditionSet).optional(),
  multivariate: z.looseObject({ variants: z.array(Variant).min(1).max(20) }).nullish(),
  payloads: z.record(z.string(), z.unknown()).nullish(),
  aggregation_group_type_index: z.number().int().min(0).max(4).nullish(),
  super_groups: z.array(ConditionSet).nullish(),
  early_exit: z.boolean().nullish(),
});

/** Payloads are stored as JSON-encoded strings; an object given by the client is encoded here. */
function encodePayload(value: unknown): string {
  if (typeof value === 'string') {
    try {
      JSON.parse(value);
      return value;
    } catch {
      return JSON.stringify(value);
    }
  }
  return JSON.stringify(value);
}

/**
 * Validates and normalises a flag's `filters` (PostHog's rules): rollouts 0..100, unique variant keys
 * summing to 100, variant overrides and payload keys naming real variants (or `true`). Group-type
 * existence needs the read model and is checked by the caller.
 */
export function validateFilters(input: unknown): FlagFilters {
  const parsed = FiltersSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw validationError(`Invalid filters: ${issue.path.join('.')}: ${issue.message}`, 'filters');
  }
  const f = parsed.data;
  const variants = f.multivariate?.variants ?? [];
  const keys = variants.map((v) => v.key);
  if (new Set(keys).size !== keys.length) throw validationError('Invalid variant definitions: Variant keys must be unique.', 'filters');
  if (variants.length) {
    const sum = variants.reduce((s, v) => s + v.rollout_percentage, 0);
    if (Math.abs(sum - 100) > 1e-9)
      throw validationError('Invalid variant definitions: Variant rollout percentages must sum to 100.', 'filters');
  }
  for (const set of [...(f.groups ?? []), ...(f.super_groups ?? [])]) {
    if (set.variant && !keys.includes(set.variant))
      throw validationError(`Filters are not valid (variant override "${set.variant}" does not exist).`, 'filters');
  }
  const payloads: Record<string, string> = {};
  for (const [key, value] of Object.entries(f.payloads ?? {})) {
    if (value === null || value === undefined || value === '') continue;
    if (key !== 'true' && !keys.includes(key))
      throw validationError(`Payload keys must be "true" or a variant key; "${key}" is neither.`, 'filters');
    payloads[key] = encodePayload(value);
  }
  return {
    ...f,
    groups: f.groups ?? [{ properties: [], rollout_percentage: 0 }],
    multivariate: variants.length ? f.multivariate : null,
    payloads,
    aggregation_group_type_index: f.aggregation_group_type_index ?? null,
  } as FlagFilters;
}

/** Group type indexes a flag refers to, so the caller can check they exist. */
export function groupTypeIndexesOf(filters: FlagFilters): number[] {
  const out = new Set<number>();
  if (filters.aggregation_group_type_index != null) out.add(filters.aggregation_group_type_index);
  for (const set of filters.groups ?? []) {
    if (set.aggregation_group_type_index != null) out.add(set.aggregation_group_type_index);
    for (const p of set.properties ?? []) if (p.type === 'group' && p.group_type_index != null) out.add(p.group_type_index);
  }
  return [...out];
}

const KEY = /^[A-Za-z0-9_-]+$/;

export function validateFlagKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0) throw validationError('This field is required.', 'key');
  if (key.length > 400) throw validationError('Ensure this field has no more than 400 characters.', 'key');
  if (!KEY.test(key)) throw validationError('Only letters, numbers, hyphens ("-") & underscores ("_") are allowed.', 'key');
  return key;
}
