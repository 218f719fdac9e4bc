import { FLAT_PRIOR, gaussianEffectTest, priorForAbsolute, type GaussianPrior } from './bayesian';
import { cupedAdjust, cupedTheta, type CupedArm } from './cuped';
import { effect, type DifferenceType, type Effect } from './effect';
import { StatisticError } from './errors';
import { welchTTest } from './frequentist';
import { validationFailures, type MetricKind, type ValidationFailure } from './gates';
import { sequentialTTest } from './sequential';
import { moments, type Moments, type VariantStatistic } from './statistics';

export interface StatsConfig {
  readonly method: 'bayesian' | 'frequentist';
  readonly bayesian: { readonly ciLevel: number; readonly differenceType: DifferenceType; readonly prior?: GaussianPrior };
  readonly frequentist: {
    readonly alpha: number;
    readonly differenceType: DifferenceType;
    readonly sequentialTestingEnabled: boolean;
    readonly sequentialTuningParameter: number;
  };
  readonly cuped: { readonly enabled: boolean };
}

export interface Arm {
  readonly key: string;
  readonly statistic: VariantStatistic;
  /** The pre-exposure covariate; present when CUPED is on and the metric allows it. */
  readonly covariate?: CupedArm['covariate'];
}

export type Outcome =
  | { method: 'bayesian'; chance_to_win: number | null; credible_interval: [number, number] | null; significant: boolean }
  | { method: 'frequentist'; p_value: number | null; confidence_interval: [number, number] | null; significant: boolean };

export interface ArmVerdict {
  readonly key: string;
  readonly validation_failures: ValidationFailure[];
}

export interface VariantVerdict extends ArmVerdict {
  readonly outcome: Outcome;
}

export interface MetricAnalysis {
  readonly baseline: ArmVerdict;
  readonly variants: VariantVerdict[];
}

/** Successes and failures a proportion needs per arm before its normal approximation is trusted. */
const MIN_PROPORTION_OUTCOMES = 5;
/** Observations per arm the t-test needs. */
const MIN_T_TEST_SAMPLES = 5;

function checkInputs(test: Arm, control: Arm, config: StatsConfig): void {
  for (const arm of [test, control]) {
    const stat = arm.statistic;
    if (config.method === 'frequentist' && stat.n < MIN_T_TEST_SAMPLES) {
      throw new StatisticError(`Variant ${arm.key} needs at least ${MIN_T_TEST_SAMPLES} samples`);
    }
    if (config.method === 'bayesian' && stat.kind === 'proportion') {
      if (stat.sum < MIN_PROPORTION_OUTCOMES || stat.n - stat.sum < MIN_PROPORTION_OUTCOMES) {
        throw new StatisticError(`Variant ${arm.key} needs at least ${MIN_PROPORTION_OUTCOMES} successes and failures`);
      }
    }
  }
}

/** The two arms' moments, CUPED-adjusted when a covariate is present (θ pooled over this pair). */
function armMoments(test: Arm, control: Arm): { test: Moments; control: Moments; controlMeanForRelative?: number } {
  const t = test.statistic;
  const c = control.statistic;
  if (test.covariate && control.covariate && t.kind !== 'ratio' && c.kind !== 'ratio') {
    const testArm: CupedArm = { post: t, covariate: test.covariate };
    const controlArm: CupedArm = { post: c, covariate: control.covariate };
    const theta = cupedTheta(testArm, controlArm);
    const controlAdjusted = cupedAdjust(controlArm, theta);
    return { test: cupedAdjust(testArm, theta), control: controlAdjusted, controlMeanForRelative: controlAdjusted.unadjustedMean };
  }
  return { test: moments(t), control: moments(c) };
}

/** Compares one test arm with the control by the configured method; throws StatisticError when it cannot. */
export function compareArms(test: Arm, control: Arm, config: StatsConfig): Outcome {
  checkInputs(test, control, config);
  const m = armMoments(test, control);
  const differenceType = config.method === 'bayesian' ? config.bayesian.differenceType : config.frequentist.differenceType;
  const controlMean = m.controlMeanForRelative ?? m.control.mean;
  if (differenceType === 'RELATIVE' && !(controlMean > 0)) {
    throw new StatisticError('The control mean must be positive for a relative difference');
  }
  const observed: Effect = effect(m.test, m.control, differenceType, m.controlMeanForRelative);
  if (!(observed.variance > 0) || !Number.isFinite(observed.variance)) {
    throw new StatisticError('The effect has no variance');
  }
  if (config.method === 'bayesian') {
    const prior = config.bayesian.prior ?? FLAT_PRIOR;
    const r = gaussianEffectTest(observed, config.bayesian.ciLevel, differenceType === 'ABSOLUTE' ? priorForAbsolute(prior, controlMean) : prior);
    return { method: 'bayesian', chance_to_win: r.chanceToWin, credible_interval: [...r.credibleInterval], significant: r.significant };
  }
  const f = config.frequentist;
  const r = f.sequentialTestingEnabled
    ? sequentialTTest(observed, m.test.n + m.control.n, f.alpha, f.sequentialTuningParameter)
    : welchTTest(observed, m.test, m.control, f.alpha);
  return { method: 'frequentist', p_value: r.pValue, confidence_interval: [...r.confidenceInterval], significant: r.significant };
}

function blank(method: StatsConfig['method']): Outcome {
  return method === 'bayesian'
    ? { method, chance_to_win: null, credible_interval: null, significant: false }
    : { method, p_value: null, confidence_interval: null, significant: false };
}

function armSum(stat: VariantStatistic): number {
  return stat.kind === 'ratio' ? stat.numerator.sum : stat.sum;
}

/**
 * Every test arm against the baseline, with PostHog's gates: a failing baseline blanks every
 * variant's statistics, a failing variant only its own, and a StatisticError blanks them too. The
 * sufficient statistics are always reported by the caller.
 */
export function analyseMetric(kind: MetricKind, baseline: Arm, variants: readonly Arm[], config: StatsConfig): MetricAnalysis {
  const baselineFailures = validationFailures(kind, baseline.statistic.n, armSum(baseline.statistic), true);
  return {
    baseline: { key: baseline.key, validation_failures: baselineFailures },
    variants: variants.map((arm) => {
      const failures = validationFailures(kind, arm.statistic.n, armSum(arm.statistic), false);
      if (baselineFailures.length > 0 || failures.length > 0) {
        return { key: arm.key, validation_failures: failures, outcome: blank(config.method) };
      }
      try {
        return { key: arm.key, validation_failures: failures, outcome: compareArms(arm, baseline, config) };
      } catch (error) {
        if (error instanceof StatisticError) return { key: arm.key, validation_failures: failures, outcome: blank(config.method) };
        throw error;
      }
    }),
  };
}
