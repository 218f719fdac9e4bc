import type { CurrentFields } from '../input';
import { checkNoDuplicateUuids, checkStatsConfig, settleOrdering } from './fields';

/**
 * The current fields a write leaves, checked together with what they sit beside: the display
 * orders follow the metric lists (every uuid must appear), uuids are unique across both lists, and
 * a `baseline_variant_key` names one of the experiment's variants.
 */
export function settleCurrentFields(
  changes: Partial<CurrentFields>,
  current: CurrentFields | null,
  variantKeys: readonly string[],
): Partial<CurrentFields> {
  const settled: Partial<CurrentFields> = { ...changes };
  const primary = changes.metrics ?? current?.metrics ?? [];
  const secondary = changes.metricsSecondary ?? current?.metricsSecondary ?? [];
  if (changes.metrics !== undefined || changes.metricsSecondary !== undefined) checkNoDuplicateUuids(primary, secondary);
  if (changes.metrics !== undefined || changes.primaryMetricsOrderedUuids !== undefined || !current) {
    settled.primaryMetricsOrderedUuids = settleOrdering(changes.primaryMetricsOrderedUuids, primary, current?.primaryMetricsOrderedUuids ?? null, 'primary_metrics_ordered_uuids');
  }
  if (changes.metricsSecondary !== undefined || changes.secondaryMetricsOrderedUuids !== undefined || !current) {
    settled.secondaryMetricsOrderedUuids = settleOrdering(
      changes.secondaryMetricsOrderedUuids,
      secondary,
      current?.secondaryMetricsOrderedUuids ?? null,
      'secondary_metrics_ordered_uuids',
    );
  }
  if (changes.statsConfig !== undefined) checkStatsConfig(changes.statsConfig, variantKeys);
  return settled;
}

/** PostHog's defaults on create: Bayesian statistics, test accounts filtered out of exposures. */
export function createDefaults(fields: Partial<CurrentFields>): Partial<CurrentFields> {
  return {
    ...fields,
    statsConfig: fields.statsConfig ?? { method: 'bayesian' },
    exposureCriteria: fields.exposureCriteria ?? { filterTestAccounts: true },
  };
}
