import type { Exposed } from './entity-values';

/** PostHog's variant for an entity exposed to more than one variant under `exclude`. */
export const MULTIPLE_VARIANT_KEY = '$multiple';

export type MultipleVariantHandling = 'exclude' | 'first_seen';

/** One entity's first exposure to one variant, as the analytics store reads it. */
export interface ExposureSighting {
  p: string;
  v: string | number | null;
  t: string;
  /** The breakdown values of that first exposure event (when the metric breaks down). */
  b?: readonly string[];
}

/**
 * Each exposed entity's variant and first exposure. Only a string is a variant. An entity seen with
 * two variants keeps the earliest one under `first_seen`, and is `$multiple` under `exclude` (the
 * results leave it out; the exposures over time show it apart, as PostHog does).
 */
export function assignExposures(rows: readonly ExposureSighting[], handling: MultipleVariantHandling): Map<string, Exposed> {
  const byEntity = new Map<string, Exposed>();
  const mixed = new Set<string>();
  for (const row of rows) {
    if (typeof row.v !== 'string') continue;
    const first = Date.parse(row.t);
    const seen = byEntity.get(row.p);
    const exposed: Exposed = row.b ? { variant: row.v, first, breakdown: row.b } : { variant: row.v, first };
    if (!seen) {
      byEntity.set(row.p, exposed);
      continue;
    }
    if (seen.variant !== row.v) mixed.add(row.p);
    if (first < seen.first) byEntity.set(row.p, exposed);
  }
  if (handling === 'exclude') {
    for (const entity of mixed) byEntity.set(entity, { ...byEntity.get(entity)!, variant: MULTIPLE_VARIANT_KEY });
  }
  return byEntity;
}

/** The experiment's `exposure_criteria.multiple_variant_handling` (PostHog's default: exclude). */
export function handlingOf(criteria: Record<string, unknown> | null | undefined): MultipleVariantHandling {
  return criteria?.multiple_variant_handling === 'first_seen' ? 'first_seen' : 'exclude';
}
