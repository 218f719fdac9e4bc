import { probabilitiesToBeBest } from '../bayes/probability-best';
import { CREDIBLE_INTERVAL_BOUNDS } from '../constants';
import { funnelFrequentist } from '../frequentist/two-proportion';
import { sampleRatioMismatch, srmObservations } from '../srm';
import type { ExperimentStatsOptions, FunnelExperimentStats, FunnelVariantInput, Interval } from '../types';
import { requireCount, splitControl } from '../validate';
import { funnelPosterior, funnelSignificance } from './significance';

/**
 * Bayesian (PostHog-compatible) and frequentist results of a funnel
 * experiment. The caller adds `filters`, `last_refresh` and `is_cached`.
 */
export function funnelExperimentStats(
  variants: readonly FunnelVariantInput[],
  options: ExperimentStatsOptions = {},
): FunnelExperimentStats {
  for (const v of variants) {
    requireCount(v.success, `success of ${v.key}`);
    requireCount(v.failure, `failure of ${v.key}`);
  }
  const { control, tests } = splitControl(variants, options.controlKey);
  const ordered = [control, ...tests];
  const posteriors = ordered.map(funnelPosterior);
  const probabilities = probabilitiesToBeBest(posteriors);
  const { code, expectedLoss } = funnelSignificance(control, tests, probabilities);
  const [lowTail, highTail] = CREDIBLE_INTERVAL_BOUNDS;
  const proportion = (v: FunnelVariantInput) => ({ key: v.key, successes: v.success, total: v.success + v.failure });

  return {
    insight: 'FUNNELS',
    probability: Object.fromEntries(ordered.map((v, i) => [v.key, probabilities[i]])),
    significant: code === 'significant',
    significance_code: code,
    expected_loss: expectedLoss,
    variants: ordered.map((v) => ({ key: v.key, success_count: v.success, failure_count: v.failure })),
    credible_intervals: Object.fromEntries(
      ordered.map((v, i): [string, Interval] => [v.key, [posteriors[i].quantile(lowTail), posteriors[i].quantile(highTail)]]),
    ),
    frequentist: funnelFrequentist(proportion(control), tests.map(proportion)),
    sample_ratio_mismatch: sampleRatioMismatch(
      srmObservations(
        ordered.map((v) => ({ key: v.key, exposure: v.success + v.failure })),
        options.exposures,
      ),
      options.split,
    ),
  };
}
