/**
 * The numeric cases of PostHog's and GrowthBook's own statistics tests (compat §15.5), written from
 * their inputs and expected numbers. Each names its source; the tolerance is the source's own
 * (GrowthBook rounds to 5 decimals; PostHog's assertAlmostEqual uses the `places` given).
 */
import { describe, expect, it } from 'vitest';
import {
  effect,
  gaussianEffectTest,
  meanStatistic,
  moments,
  proportionStatistic,
  sequentialTTest,
  welchTTest,
  type RatioStatistic,
  type VariantStatistic,
} from '../../../../src/stats/v2';

const GB = 5;

function welch(test: VariantStatistic, control: VariantStatistic, type: 'RELATIVE' | 'ABSOLUTE', alpha = 0.05) {
  const t = moments(test);
  const c = moments(control);
  return welchTTest(effect(t, c, type), t, c, alpha);
}

describe('GrowthBook packages/stats/tests/frequentist/test_tests.py', () => {
  // stat_a is GrowthBook's control, stat_b its treatment.
  const control = meanStatistic(3407, 1396.87, 52377.9767);
  const test = meanStatistic(3461, 2422.7, 134698.29);

  it('TestTwoSidedTTest.test_two_sided_ttest (relative Welch)', () => {
    const r = welch(test, control, 'RELATIVE');
    expect(r.effect).toBeCloseTo(0.70732, GB);
    expect(r.stddev).toBeCloseTo(0.37879, GB);
    expect(r.confidenceInterval[0]).toBeCloseTo(-0.03526, GB);
    expect(r.confidenceInterval[1]).toBeCloseTo(1.44989, GB);
    expect(r.pValue).toBeCloseTo(0.06191, GB);
    expect(r.significant).toBe(false);
  });

  it('TestTwoSidedTTest.test_two_sided_ttest_absolute', () => {
    const r = welch(test, control, 'ABSOLUTE');
    expect(r.effect).toBeCloseTo(0.29, GB);
    expect(r.stddev).toBeCloseTo(0.12478, GB);
    expect(r.confidenceInterval[0]).toBeCloseTo(0.04538, GB);
    expect(r.confidenceInterval[1]).toBeCloseTo(0.53462, GB);
    expect(r.pValue).toBeCloseTo(0.02016, GB);
    expect(r.significant).toBe(true);
  });

  it('TestTwoSidedTTest.test_two_sided_ttest_binom (proportions, relative)', () => {
    const r = welch(proportionStatistic(30, 16), proportionStatistic(28, 14), 'RELATIVE');
    expect(r.effect).toBeCloseTo(0.06667, GB);
    expect(r.stddev).toBeCloseTo(0.2717, GB);
    expect(r.confidenceInterval[0]).toBeCloseTo(-0.47767, GB);
    expect(r.confidenceInterval[1]).toBeCloseTo(0.61101, GB);
    expect(r.pValue).toBeCloseTo(0.80707, GB);
  });

  const seqControl = meanStatistic(3000, 1396.87, 52377.9767);
  const seqTest = meanStatistic(3461, 2422.7, 134698.29);

  it('TestSequentialTTest.test_sequential_test_runs (tuning 1000)', () => {
    const observed = effect(moments(seqTest), moments(seqControl), 'RELATIVE');
    const r = sequentialTTest(observed, 6461, 0.05, 1000);
    expect(r.effect).toBeCloseTo(0.50336, GB);
    expect(r.stddev).toBeCloseTo(0.33341, GB);
    expect(r.confidenceInterval[0]).toBeCloseTo(-0.55844, GB);
    expect(r.confidenceInterval[1]).toBeCloseTo(1.56516, GB);
    expect(r.pValue).toBe(1);
  });

  it('TestSequentialTTest.test_sequential_test_runs_prop (default tuning 5000)', () => {
    const observed = effect(moments(proportionStatistic(3461, 2422)), moments(proportionStatistic(3000, 1396)), 'RELATIVE');
    const r = sequentialTTest(observed, 6461, 0.05);
    expect(r.effect).toBeCloseTo(0.50386, GB);
    expect(r.stddev).toBeCloseTo(0.03386, GB);
    expect(r.confidenceInterval[0]).toBeCloseTo(0.40098, GB);
    expect(r.confidenceInterval[1]).toBeCloseTo(0.60675, GB);
    expect(r.pValue).toBeCloseTo(0, GB);
    expect(r.significant).toBe(true);
  });

  it('TestSequentialTTest.test_sequential_test_tuning_as_expected: the interval is tightest when N is near n', () => {
    const observed = effect(moments(seqTest), moments(seqControl), 'RELATIVE');
    const width = (tuning: number) => {
      const [lo, hi] = sequentialTTest(observed, 6461, 0.05, tuning).confidenceInterval;
      return { lo, hi };
    };
    const below = width(10);
    const near = width(6461);
    const above = width(10000);
    expect(below.lo).toBeLessThan(above.lo);
    expect(below.hi).toBeGreaterThan(above.hi);
    expect(above.lo).toBeLessThan(near.lo);
    expect(above.hi).toBeGreaterThan(near.hi);
  });
});

describe('GrowthBook packages/stats/tests/bayesian/test_tests.py', () => {
  it('TestNorm.test_bayesian_gaussian_ab_test (flat prior)', () => {
    const observed = effect(moments(meanStatistic(10, 105, 1111.5)), moments(meanStatistic(10, 100, 1002.25)), 'RELATIVE');
    const r = gaussianEffectTest(observed, 0.95);
    expect(r.effect).toBeCloseTo(0.05, GB);
    expect(r.stddev).toBeCloseTo(0.03572, GB);
    expect(r.credibleInterval[0]).toBeCloseTo(-0.02, GB);
    expect(r.credibleInterval[1]).toBeCloseTo(0.12, GB);
    expect(r.chanceToWin).toBeCloseTo(0.91923, GB);
    expect(r.risk[0]).toBeCloseTo(0.05131, GB);
    expect(r.risk[1]).toBeCloseTo(0.00131, GB);
  });

  it('TestNorm.test_bayesian_gaussian_ab_test_informative (proper prior N(0.1, 0.1))', () => {
    const observed = effect(moments(meanStatistic(10, 105, 1111.5)), moments(meanStatistic(10, 100, 1002.25)), 'RELATIVE');
    const r = gaussianEffectTest(observed, 0.95, { mean: 0.1, variance: 0.1, proper: true });
    expect(r.effect).toBeCloseTo(0.05063, GB);
    expect(r.stddev).toBeCloseTo(0.03549, GB);
    expect(r.credibleInterval[0]).toBeCloseTo(-0.01893, GB);
    expect(r.credibleInterval[1]).toBeCloseTo(0.12019, GB);
    expect(r.chanceToWin).toBeCloseTo(0.92315, GB);
    expect(r.risk[0]).toBeCloseTo(0.05186, GB);
    expect(r.risk[1]).toBeCloseTo(0.00123, GB);
  });

  it('TestBinom.test_bayesian_binomial_ab_test', () => {
    const observed = effect(moments(proportionStatistic(100, 51)), moments(proportionStatistic(100, 49)), 'RELATIVE');
    const r = gaussianEffectTest(observed, 0.95);
    expect(r.effect).toBeCloseTo(0.04082, GB);
    expect(r.stddev).toBeCloseTo(0.14725, GB);
    expect(r.credibleInterval[0]).toBeCloseTo(-0.24779, GB);
    expect(r.credibleInterval[1]).toBeCloseTo(0.32943, GB);
    expect(r.chanceToWin).toBeCloseTo(0.60918, GB);
    expect(r.risk[0]).toBeCloseTo(0.0814, GB);
    expect(r.risk[1]).toBeCloseTo(0.04058, GB);
  });
});

describe('PostHog products/experiments/stats/tests/test_frequentist.py (places=4)', () => {
  it('test_two_sided_ttest_with_sample_mean', () => {
    const r = welch(meanStatistic(2461, 1922.7, 94698.29), meanStatistic(2507, 1196.87, 37377.9767), 'RELATIVE');
    expect(r.effect).toBeCloseTo(0.63646, 4);
    expect(r.confidenceInterval[0]).toBeCloseTo(-0.0875, 4);
    expect(r.confidenceInterval[1]).toBeCloseTo(1.36048, 4);
    expect(r.pValue).toBeCloseTo(0.08487, 4);
  });

  it('test_two_sided_ttest_with_sample_proportion', () => {
    const r = welch(proportionStatistic(1471, 62), proportionStatistic(1529, 87), 'RELATIVE');
    expect(r.effect).toBeCloseTo(-0.25925, 4);
    expect(r.confidenceInterval[0]).toBeCloseTo(-0.49475, 4);
    expect(r.confidenceInterval[1]).toBeCloseTo(-0.02376, 4);
    expect(r.pValue).toBeCloseTo(0.03096, 4);
    expect(r.significant).toBe(true);
  });

  it('test_two_sided_ttest_with_ratio_statistic (delta method)', () => {
    const ratio = (n: number, m: number, mm: number, d: number): RatioStatistic => ({
      kind: 'ratio',
      n,
      numerator: { sum: m, sumSquares: mm },
      denominator: { sum: d, sumSquares: d },
      sumProducts: m,
    });
    const treatment = ratio(2034, 99673.9364269569, 11298745.182728939, 947);
    const control = ratio(1966, 94605.79858780127, 10463129.505392816, 936);
    const r = welch(treatment, control, 'RELATIVE');
    expect(r.effect).toBeCloseTo(0.041333, 4);
    expect(r.confidenceInterval[0]).toBeCloseTo(0.01378609, 4);
    expect(r.confidenceInterval[1]).toBeCloseTo(0.0689, 4);
    expect(r.pValue).toBeCloseTo(0.0032826, 4);
  });
});
