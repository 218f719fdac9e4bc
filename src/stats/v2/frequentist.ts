import type { Effect } from './effect';
import type { Moments } from './statistics';
import { studentTQuantile, studentTTwoSided } from './student-t';

export interface FrequentistResult {
  readonly effect: number;
  readonly stddev: number;
  readonly pValue: number;
  readonly confidenceInterval: readonly [number, number];
  readonly significant: boolean;
  /** Welch–Satterthwaite degrees of freedom; NaN for the sequential test. */
  readonly degreesOfFreedom: number;
}

/**
 * Welch–Satterthwaite degrees of freedom from the raw arm variances (PostHog and GrowthBook use
 * them even when the effect is relative).
 */
export function welchDegreesOfFreedom(test: Moments, control: Moments): number {
  const a = test.variance / test.n;
  const b = control.variance / control.n;
  return (a + b) ** 2 / (a ** 2 / (test.n - 1) + b ** 2 / (control.n - 1));
}

/** Two-sided Welch t-test on the effect: t = Δ/√W, p = P(|T_df| ≥ |t|), CI = Δ ± t_{1−α/2,df}·√W. */
export function welchTTest(observed: Effect, test: Moments, control: Moments, alpha: number): FrequentistResult {
  const stddev = Math.sqrt(observed.variance);
  const df = welchDegreesOfFreedom(test, control);
  const t = observed.delta / stddev;
  const pValue = studentTTwoSided(t, df);
  const half = studentTQuantile(1 - alpha / 2, df) * stddev;
  return {
    effect: observed.delta,
    stddev,
    pValue,
    confidenceInterval: [observed.delta - half, observed.delta + half],
    significant: pValue < alpha,
    degreesOfFreedom: df,
  };
}
