import { hashMemo } from './hash-memo';
import type { FlagFilters, Variant } from './types';

/**
 * The variant whose cumulative range [lo, hi) holds h(key, bucket, "variant"); null when the
 * percentages leave the hash uncovered (e.g. they sum to less than 100).
 */
export function pickVariant(flagKey: string, bucket: string, variants: readonly Variant[]): string | null {
  const x = hashMemo.hash(flagKey, bucket, true);
  let lo = 0;
  for (const variant of variants) {
    const hi = lo + variant.rollout_percentage / 100;
    if (lo <= x && x < hi) return variant.key;
    lo = hi;
  }
  return null;
}

/** A matched set's variant: its override when that names a real variant, else the hashed pick. */
export function variantFor(
  flagKey: string,
  filters: FlagFilters,
  override: string | null | undefined,
  bucket: string,
): string | null {
  const variants = filters.multivariate?.variants;
  // Stryker disable next-line ConditionalExpression: equivalent, pickVariant finds nothing in an empty list either
  if (!variants || variants.length === 0) return null;
  if (override) for (const v of variants) if (v.key === override) return override;
  return pickVariant(flagKey, bucket, variants);
}

/** The JSON-encoded payload stored for `"true"` or the variant key, or null. */
export function payloadFor(filters: FlagFilters, variant: string | null): string | null {
  const payloads = filters.payloads;
  const slot = variant ?? 'true';
  if (!payloads || !Object.prototype.hasOwnProperty.call(payloads, slot)) return null;
  const stored = payloads[slot];
  if (stored === undefined || stored === null) return null;
  // Payloads are meant to be stored already JSON-encoded; encode any that were kept as raw JSON.
  return typeof stored === 'string' ? stored : JSON.stringify(stored);
}
