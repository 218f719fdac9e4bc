export type ValidationFailure = 'not-enough-exposures' | 'not-enough-metric-data' | 'baseline-mean-is-zero';

/** PostHog's minimum-sample gates (`validate_variant_result`). */
export const MIN_EXPOSURES = 50;
export const MIN_METRIC_EVENTS = 5;

export type MetricKind = 'mean' | 'funnel' | 'ratio' | 'retention';

/**
 * Fewer than 50 exposed entities; for a funnel (or retention) fewer than 5 conversions; for the
 * baseline a sum of 0 (no relative effect can be taken against it).
 */
export function validationFailures(kind: MetricKind, n: number, sum: number, isBaseline: boolean): ValidationFailure[] {
  const failures: ValidationFailure[] = [];
  if (n < MIN_EXPOSURES) failures.push('not-enough-exposures');
  if ((kind === 'funnel' || kind === 'retention') && sum < MIN_METRIC_EVENTS) failures.push('not-enough-metric-data');
  if (isBaseline && sum === 0) failures.push('baseline-mean-is-zero');
  return failures;
}
