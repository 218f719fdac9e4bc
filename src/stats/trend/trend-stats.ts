import { probabilitiesToBeBest } from '../bayes/probability-best';
import { CREDIBLE_INTERVAL_BOUNDS } from '../constants';
import { trendFrequentist } from '../frequentist/poisson-rates';
import { gammaPosterior } from '../posterior/gamma';
import { sampleRatioMismatch, srmObservations } from '../srm';
import type { ExperimentStatsOptions, Interval, TrendExperimentStats, TrendVariantInput, TrendVariantStats } from '../types';
import { requireCount, requireNonNegative, splitControl } from '../validate';
import { trendSignificance } from './significance';

/**
 * Exposure relative to control, as PostHog computes it. A variant (or a
 * control) without exposures is absent from PostHog's exposure query and
 * falls back to a ratio of 1; we keep that behaviour.
 */
function relativeExposure(variant: TrendVariantInput, control: TrendVariantInput): number {
  return control.exposure > 0 && variant.exposure > 0 ? variant.exposure / control.exposure : 1;
}

/**
 * Bayesian (PostHog-compatible) and frequentist results of a trend (count)
 * experiment. The caller adds `filters`, `last_refresh` and `is_cached`.
 */
export function trendExperimentStats(
  variants: readonly TrendVariantInput[],
  options: ExperimentStatsOptions = {},
): TrendExperimentStats {
  for (const v of variants) {
    requireCount(v.count, `count of ${v.key}`);
    requireNonNegative(v.exposure, `exposure of ${v.key}`);
  }
  const { control, tests } = splitControl(variants, options.controlKey);
  const ordered = [control, ...tests];
  const stats: TrendVariantStats[] = ordered.map((v) => ({
    key: v.key,
    count: v.count,
    exposure: relativeExposure(v, control),
    absolute_exposure: v.exposure,
  }));
  // Gamma(count + 1, 1 / relative exposure): PostHog's posterior of the rate.
  const probabilities = probabilitiesToBeBest(stats.map((v) => gammaPosterior(v.count + 1, 1 / v.exposure)));
  const { code, pValue } = trendSignificance(stats[0], stats.slice(1), probabilities);
  const [lowTail, highTail] = CREDIBLE_INTERVAL_BOUNDS;

  return {
    insight: 'TRENDS',
    probability: Object.fromEntries(ordered.map((v, i) => [v.key, probabilities[i]])),
    significant: code === 'significant',
    significance_code: code,
    p_value: pValue,
    variants: stats,
    credible_intervals: Object.fromEntries(
      ordered.map((v): [string, Interval] => {
        // Per exposed person; PostHog's fallback of 1 for a variant without exposures.
        const rate = gammaPosterior(v.count + 1, 1 / (v.exposure > 0 ? v.exposure : 1));
        return [v.key, [rate.quantile(lowTail), rate.quantile(highTail)]];
      }),
    ),
    frequentist: trendFrequentist(control, tests),
    sample_ratio_mismatch: sampleRatioMismatch(srmObservations(ordered, options.exposures), options.split),
  };
}
