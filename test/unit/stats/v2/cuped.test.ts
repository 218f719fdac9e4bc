/** CUPED against PostHog's products/experiments/stats/tests/test_cuped.py (TestCupedReferenceData) and GrowthBook's sequential RA case. */
import { describe, expect, it } from 'vitest';
import {
  compareArms,
  cupedAdjust,
  cupedTheta,
  effect,
  gaussianEffectTest,
  meanStatistic,
  sampleCovariance,
  sequentialTTest,
  welchTTest,
  type CupedArm,
  type StatsConfig,
} from '../../../../src/stats/v2';

const arm = (n: number, sum: number, ss: number, preSum: number, preSs: number, cross: number): CupedArm => ({
  post: meanStatistic(n, sum, ss),
  covariate: { sum: preSum, sumSquares: preSs, sumProducts: cross },
});

const small = arm(5, 14, 48, 28.5, 520.3, 85.2);
const control = arm(2801, 280, 560, 195, 390, -18);
const treatment = arm(2800, 205, 510, 110, 380, -8);
const treatment2 = arm(3500, 420, 840, 280, 560, -25);

describe('PostHog test_cuped.py TestCupedReferenceData', () => {
  it('test_adjust_group_theta_zero: θ = 0 leaves mean and variance', () => {
    const r = cupedAdjust(small, 0);
    expect(r.mean).toBeCloseTo(2.8, 9);
    expect(r.variance).toBeCloseTo(2.2, 9);
    expect(r.varianceReduction).toBeCloseTo(0, 9);
  });

  it('test_adjust_group_nonzero_theta', () => {
    const r = cupedAdjust(small, 0.31);
    expect(r.mean).toBeCloseTo(1.033, 5);
    expect(r.variance).toBeCloseTo(9.960346, 4);
  });

  it('test_covariance_computation', () => {
    expect(sampleCovariance(5, 14, 28.5, 85.2)).toBeCloseTo(1.35, 9);
  });

  it('test_adjust_group_single_observation: n = 1 has no variance', () => {
    expect(cupedAdjust(arm(1, 8, 64, 15.3, 15.3 ** 2, 50), 0.4).variance).toBeCloseTo(0, 9);
  });

  it('test_theta_pooled_identical_groups', () => {
    expect(cupedTheta(small, small)).toBeCloseTo(0.015090122, 7);
  });

  it('test_theta_zero_when_no_pre_variance', () => {
    const constant = { sum: 500, sumSquares: 2500 };
    const t: CupedArm = { post: meanStatistic(100, 500, 3000), covariate: { ...constant, sumProducts: 2500 } };
    const c: CupedArm = { post: meanStatistic(100, 480, 2800), covariate: { ...constant, sumProducts: 2400 } };
    expect(cupedTheta(t, c)).toBe(0);
  });

  it('test_mean_metric_theta_and_adjusted_stats', () => {
    const theta = cupedTheta(treatment, control);
    expect(theta).toBeCloseTo(-0.069566052, 7);
    const c = cupedAdjust(control, theta);
    const t = cupedAdjust(treatment, theta);
    expect(c.unadjustedMean).toBeCloseTo(0.099964299, 7);
    expect(t.unadjustedMean).toBeCloseTo(0.073214286, 7);
    expect(c.mean).toBeCloseTo(0.104807347, 7);
    expect(t.mean).toBeCloseTo(0.075947238, 7);
    expect(c.variance).toBeLessThan(cupedAdjust(control, 0).variance);
    expect(t.variance).toBeLessThan(cupedAdjust(treatment, 0).variance);
  });

  it('test_mean_metric_relative_effect (frequentist, unadjusted control mean)', () => {
    const theta = cupedTheta(treatment, control);
    const c = cupedAdjust(control, theta);
    const t = cupedAdjust(treatment, theta);
    const r = welchTTest(effect(t, c, 'RELATIVE', c.unadjustedMean), t, c, 0.05);
    expect(r.effect).toBeCloseTo(-0.288704169, 5);
    expect(r.confidenceInterval[0]).toBeCloseTo(-0.486775, 5);
    expect(r.confidenceInterval[1]).toBeCloseTo(-0.090633, 5);
    expect(r.significant).toBe(true);
  });

  it('test_mean_metric_relative_effect_bayesian', () => {
    const theta = cupedTheta(treatment, control);
    const c = cupedAdjust(control, theta);
    const t = cupedAdjust(treatment, theta);
    const r = gaussianEffectTest(effect(t, c, 'RELATIVE', c.unadjustedMean), 0.95);
    expect(r.effect).toBeCloseTo(-0.288704169, 4);
    expect(r.credibleInterval[0]).toBeCloseTo(-0.486732, 5);
    expect(r.credibleInterval[1]).toBeCloseTo(-0.090676, 5);
  });

  it('test_three_armed_adjusted_stddev: each θ from its pair with control', () => {
    expect(Math.sqrt(cupedAdjust(control, cupedTheta(treatment2, control)).variance)).toBeCloseTo(0.434365539, 5);
    expect(Math.sqrt(cupedAdjust(treatment, cupedTheta(treatment, control)).variance)).toBeCloseTo(0.420353709, 5);
    expect(Math.sqrt(cupedAdjust(treatment2, cupedTheta(treatment2, control)).variance)).toBeCloseTo(0.473119119, 5);
  });

  it('compareArms runs the same path: CUPED on, frequentist relative', () => {
    const config: StatsConfig = {
      method: 'frequentist',
      bayesian: { ciLevel: 0.95, differenceType: 'RELATIVE' },
      frequentist: { alpha: 0.05, differenceType: 'RELATIVE', sequentialTestingEnabled: false, sequentialTuningParameter: 5000 },
      cuped: { enabled: true },
    };
    const outcome = compareArms(
      { key: 'test', statistic: treatment.post, covariate: treatment.covariate },
      { key: 'control', statistic: control.post, covariate: control.covariate },
      config,
    );
    expect(outcome.method).toBe('frequentist');
    if (outcome.method !== 'frequentist') return;
    expect(outcome.confidence_interval?.[0]).toBeCloseTo(-0.486775, 5);
    expect(outcome.confidence_interval?.[1]).toBeCloseTo(-0.090633, 5);
    expect(outcome.significant).toBe(true);
  });
});

describe('GrowthBook frequentist/test_tests.py TestSequentialTTest.test_sequential_test_runs_ra', () => {
  it('CUPED with sequential testing (θ pooled; with PostHog relative variance the GrowthBook interval holds to 3 decimals)', () => {
    const a = arm(3000, 1396.87, 52377.9767, 16.87, 527.9767, 1);
    const b = arm(3461, 2422.7, 134698.29, 22.7, 1348.29, 1);
    const theta = cupedTheta(b, a);
    const c = cupedAdjust(a, theta);
    const t = cupedAdjust(b, theta);
    const observed = effect(t, c, 'RELATIVE', c.unadjustedMean);
    const r = sequentialTTest(observed, 6461, 0.05);
    expect(r.effect).toBeCloseTo(0.50338, 5);
    // PostHog's plug-in relative variance (§15.4: 0.1111763, GrowthBook's full delta method 0.1111636).
    expect(observed.variance).toBeCloseTo(0.1111763, 7);
    expect(r.stddev).toBeCloseTo(0.33341, 4);
    // GrowthBook's full delta method and PostHog's plug-in differ in the relative variance (§15.4);
    // on this data the interval agrees to 3 decimals.
    expect(r.confidenceInterval[0]).toBeCloseTo(-0.50969, 3);
    expect(r.confidenceInterval[1]).toBeCloseTo(1.51646, 3);
    expect(r.pValue).toBe(1);
  });
});
