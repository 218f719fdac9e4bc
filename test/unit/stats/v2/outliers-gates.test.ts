import { describe, expect, it } from 'vitest';
import {
  analyseMetric,
  clamp,
  meanStatistic,
  outlierBounds,
  proportionStatistic,
  studentTCdf,
  studentTQuantile,
  studentTTwoSided,
  validationFailures,
  type StatsConfig,
} from '../../../../src/stats/v2';

describe('outlier clamping (PostHog products/experiments/backend/hogql_queries/tests/test_mean_metric.py)', () => {
  it('clamps counts {1, 3×8, 100} vs {2, 4×9} at p10/p90 taken over both variants: sums 30.9 and 38.9', () => {
    const control = [1, ...Array<number>(8).fill(3), 100];
    const test = [2, ...Array<number>(9).fill(4)];
    const bounds = outlierBounds([...control, ...test], 0.1, 0.9);
    expect(bounds.lower).toBeCloseTo(2.9, 12);
    expect(bounds.upper).toBeCloseTo(4, 12);
    const sum = (values: number[]) => values.reduce((acc, v) => acc + clamp(v, bounds), 0);
    expect(sum(control)).toBeCloseTo(30.9, 12);
    expect(sum(test)).toBeCloseTo(38.9, 12);
  });

  it('leaves a side open when its percentile is missing, and skips zeros for the upper bound with ignore_zeros', () => {
    const values = [0, 0, 0, 0, 0, 0, 0, 0, 5, 10];
    expect(outlierBounds(values, null, 0.5).upper).toBe(0);
    expect(outlierBounds(values, null, 0.5, true).upper).toBe(7.5);
    expect(outlierBounds(values, null, 0.5, true).lower).toBe(Number.NEGATIVE_INFINITY);
  });
});

describe('minimum-sample gates (PostHog validate_variant_result)', () => {
  it('names each failure', () => {
    expect(validationFailures('mean', 49, 10, false)).toEqual(['not-enough-exposures']);
    expect(validationFailures('mean', 50, 0, false)).toEqual([]);
    expect(validationFailures('funnel', 80, 4, false)).toEqual(['not-enough-metric-data']);
    expect(validationFailures('mean', 80, 0, true)).toEqual(['baseline-mean-is-zero']);
  });

  const bayesian: StatsConfig = {
    method: 'bayesian',
    bayesian: { ciLevel: 0.95, differenceType: 'RELATIVE' },
    frequentist: { alpha: 0.05, differenceType: 'RELATIVE', sequentialTestingEnabled: false, sequentialTuningParameter: 5000 },
    cuped: { enabled: false },
  };

  it('reproduces §15.2 example (funnel 120/1000 vs 150/1000, Bayesian relative)', () => {
    const r = analyseMetric('funnel', { key: 'control', statistic: proportionStatistic(1000, 120) }, [{ key: 'test', statistic: proportionStatistic(1000, 150) }], bayesian);
    const outcome = r.variants[0]?.outcome;
    expect(outcome?.method).toBe('bayesian');
    if (outcome?.method !== 'bayesian') return;
    expect(outcome.chance_to_win).toBeCloseTo(0.9603, 4);
    expect(outcome.credible_interval?.[0]).toBeCloseTo(-0.0293, 4);
    expect(outcome.credible_interval?.[1]).toBeCloseTo(0.5293, 4);
    expect(outcome.significant).toBe(true);
  });

  it('a failing baseline blanks every variant, a failing variant only its own', () => {
    const weakBaseline = analyseMetric(
      'mean',
      { key: 'control', statistic: meanStatistic(40, 40, 80) },
      [{ key: 'test', statistic: meanStatistic(100, 120, 300) }],
      bayesian,
    );
    expect(weakBaseline.baseline.validation_failures).toEqual(['not-enough-exposures']);
    expect(weakBaseline.variants[0]?.outcome).toEqual({ method: 'bayesian', chance_to_win: null, credible_interval: null, significant: false });

    const r = analyseMetric(
      'mean',
      { key: 'control', statistic: meanStatistic(100, 100, 300) },
      [
        { key: 'a', statistic: meanStatistic(10, 10, 30) },
        { key: 'b', statistic: meanStatistic(100, 130, 400) },
      ],
      bayesian,
    );
    expect(r.variants[0]?.validation_failures).toEqual(['not-enough-exposures']);
    expect(r.variants[0]?.outcome).toMatchObject({ chance_to_win: null });
    expect(r.variants[1]?.validation_failures).toEqual([]);
    expect(r.variants[1]?.outcome).toMatchObject({ method: 'bayesian' });
    if (r.variants[1]?.outcome.method === 'bayesian') expect(r.variants[1].outcome.chance_to_win).toBeGreaterThan(0.5);
  });

  it('a StatisticError blanks the statistics (relative effect against a zero control mean)', () => {
    const r = analyseMetric('mean', { key: 'control', statistic: meanStatistic(100, 0, 0) }, [{ key: 'test', statistic: meanStatistic(100, 5, 9) }], bayesian);
    expect(r.baseline.validation_failures).toEqual(['baseline-mean-is-zero']);
    expect(r.variants[0]?.outcome).toMatchObject({ chance_to_win: null });
  });
});

describe("Student's t", () => {
  it('matches tabulated quantiles and tails', () => {
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.228139, 6);
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 4);
    expect(studentTQuantile(0.025, 30)).toBeCloseTo(-2.042272, 6);
    expect(studentTCdf(2.228139, 10)).toBeCloseTo(0.975, 6);
    expect(studentTTwoSided(2.042272, 30)).toBeCloseTo(0.05, 6);
    expect(studentTQuantile(0.975, 1e13)).toBeCloseTo(1.959964, 6);
  });
});
