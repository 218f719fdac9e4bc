import { CONFIDENCE_LEVEL, P_VALUE_SIGNIFICANCE_LEVEL } from '../constants';
import { gammaPosterior } from '../posterior/gamma';
import type { Interval } from '../interval';
import { binomialTestTwoSided, clopperPearson } from './binomial';

export interface RateComparison {
  /** (test count / test exposure) ÷ (control count / control exposure). */
  rate_ratio: number | null;
  /** Exact interval of the rate ratio; the upper bound is null when unbounded. */
  confidence_interval: [number, number | null] | null;
  /** Two-sided exact conditional (binomial) test of equal rates. */
  p_value: number | null;
  significant: boolean;
}

export interface TrendFrequentist {
  method: 'exact_poisson_rate_test';
  interval_method: 'exact_poisson';
  confidence_level: number;
  /** Events per exposed person. */
  rates: Record<string, number | null>;
  confidence_intervals: Record<string, Interval | null>;
  comparisons: Record<string, RateComparison>;
}

export interface PoissonCount {
  count: number;
  exposure: number;
}

/** Exact (Garwood) interval of a Poisson rate, from Gamma quantiles. */
export function exactPoissonRateInterval({ count, exposure }: PoissonCount, confidence: number): Interval | null {
  if (!(exposure > 0)) return null;
  const tail = (1 - confidence) / 2;
  const lower = count === 0 ? 0 : gammaPosterior(count, 1).quantile(tail);
  const upper = gammaPosterior(count + 1, 1).quantile(1 - tail);
  return [lower / exposure, upper / exposure];
}

/**
 * Compares two Poisson rates by conditioning on the total count: under equal
 * rates the test's share of events is Binomial(total, e_t / (e_t + e_c)).
 * This is the test of R's poisson.test with two samples.
 */
export function comparePoissonRates(test: PoissonCount, control: PoissonCount, confidence: number): RateComparison {
  const total = test.count + control.count;
  if (!(test.exposure > 0) || !(control.exposure > 0) || total === 0) {
    return { rate_ratio: null, confidence_interval: null, p_value: null, significant: false };
  }
  const share = test.exposure / (test.exposure + control.exposure);
  const pValue = binomialTestTwoSided(test.count, total, share);
  const exposureRatio = control.exposure / test.exposure;
  const [low, high] = clopperPearson(test.count, total, confidence);
  const toRatio = (pi: number): number => (pi / (1 - pi)) * exposureRatio;
  return {
    rate_ratio: control.count === 0 ? null : (test.count / test.exposure) / (control.count / control.exposure),
    confidence_interval: [toRatio(low), high >= 1 ? null : toRatio(high)],
    p_value: pValue,
    significant: pValue < 1 - confidence,
  };
}

export function trendFrequentist(
  control: { key: string } & PoissonCount,
  tests: ReadonlyArray<{ key: string } & PoissonCount>,
): TrendFrequentist {
  const all = [control, ...tests];
  return {
    method: 'exact_poisson_rate_test',
    interval_method: 'exact_poisson',
    confidence_level: CONFIDENCE_LEVEL,
    rates: Object.fromEntries(all.map((v) => [v.key, v.exposure > 0 ? v.count / v.exposure : null])),
    confidence_intervals: Object.fromEntries(all.map((v) => [v.key, exactPoissonRateInterval(v, CONFIDENCE_LEVEL)])),
    comparisons: Object.fromEntries(
      tests.map((t) => [t.key, comparePoissonRates(t, control, 1 - P_VALUE_SIGNIFICANCE_LEVEL)]),
    ),
  };
}
