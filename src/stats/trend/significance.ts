import { EXPOSURE_THRESHOLD, MIN_PROBABILITY_FOR_SIGNIFICANCE, P_VALUE_SIGNIFICANCE_LEVEL } from '../constants';
import { binomialCdf, binomialSf } from '../frequentist/binomial';
import type { SignificanceCode, TrendVariantStats } from '../types';

/**
 * PostHog's Poisson p-value (Evan Miller's count test): conditional on the
 * total, the test count is Binomial(total, e_t / (e_c + e_t)); the p-value is
 * twice the smaller tail, each tail including the observed count, capped at 1.
 */
export function posthogPoissonPValue(
  controlCount: number,
  controlExposure: number,
  testCount: number,
  testExposure: number,
): number {
  const share = testExposure / (controlExposure + testExposure);
  const total = controlCount + testCount;
  const low = binomialCdf(testCount, total, share);
  const high = binomialSf(testCount, total, share);
  return Math.min(1, 2 * Math.min(low, high));
}

/**
 * PostHog's trend decision, in its order: absolute exposure of every variant,
 * win probability, then the Poisson p-value of control against the test
 * variant with the highest count. The p-value is 1 when a check stops first.
 */
export function trendSignificance(
  control: TrendVariantStats,
  tests: readonly TrendVariantStats[],
  probabilities: readonly number[],
): { code: SignificanceCode; pValue: number } {
  for (const variant of [...tests, control]) {
    if (variant.absolute_exposure < EXPOSURE_THRESHOLD) return { code: 'not_enough_exposure', pValue: 1 };
  }
  const testProbability = probabilities.slice(1).reduce((sum, p) => sum + p, 0);
  if (probabilities[0] < MIN_PROBABILITY_FOR_SIGNIFICANCE && testProbability < MIN_PROBABILITY_FOR_SIGNIFICANCE) {
    return { code: 'low_win_probability', pValue: 1 };
  }
  let best = tests[0];
  for (const variant of tests) if (variant.count > best.count) best = variant;
  const pValue = posthogPoissonPValue(control.count, control.exposure, best.count, best.exposure);
  return { code: pValue >= P_VALUE_SIGNIFICANCE_LEVEL ? 'high_p_value' : 'significant', pValue };
}
