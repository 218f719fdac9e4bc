import type { Effect } from './effect';
import type { FrequentistResult } from './frequentist';

/** GrowthBook's and PostHog's default: the total two-arm sample size expected at decision time. */
export const DEFAULT_SEQUENTIAL_TUNING = 5000;

/**
 * ρ of the normal mixture that makes the boundary tightest at n = N (Waudby-Smith et al. 2023,
 * eq. 161): ρ = √((−2 ln α + ln(−2 ln α + 1)) / N).
 */
export function mixtureRho(alpha: number, tuning: number): number {
  const a = -2 * Math.log(alpha);
  return Math.sqrt((a + Math.log(a + 1)) / tuning);
}

/**
 * Always-valid (asymptotic confidence sequence) two-sided test: the interval stays valid however
 * often it is looked at. With n = nT + nC and σ² = n·W:
 * half-width = σ·√(2(nρ²+1)·ln(√(nρ²+1)/α)) / (nρ), and the p-value is the reciprocal of the
 * mixture e-value, min(1, √(nρ²+1)·exp(−nρ²Δ² / (2W(nρ²+1)))).
 */
export function sequentialTTest(
  observed: Effect,
  totalSampleSize: number,
  alpha: number,
  tuning: number = DEFAULT_SEQUENTIAL_TUNING,
): FrequentistResult {
  const n = totalSampleSize;
  const rho = mixtureRho(alpha, tuning);
  const spread = n * rho * rho + 1;
  const sigma = Math.sqrt(observed.variance * n);
  const half = (sigma * Math.sqrt(2 * spread * Math.log(Math.sqrt(spread) / alpha))) / (n * rho);
  const logE = (n * rho * rho * observed.delta ** 2) / (2 * observed.variance * spread) - 0.5 * Math.log(spread);
  const pValue = Math.min(1, Math.exp(-logE));
  return {
    effect: observed.delta,
    stddev: Math.sqrt(observed.variance),
    pValue,
    confidenceInterval: [observed.delta - half, observed.delta + half],
    significant: pValue < alpha,
    degreesOfFreedom: Number.NaN,
  };
}
