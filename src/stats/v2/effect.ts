import type { Moments } from './statistics';

export type DifferenceType = 'RELATIVE' | 'ABSOLUTE';

/** The effect of test over control and the variance of its estimate (arms independent). */
export interface Effect {
  readonly delta: number;
  readonly variance: number;
}

/**
 * Absolute: Δ = μT − μC, W = VT/nT + VC/nC.
 * Relative (delta method): Δ = (μT − μC)/μC, W = VT/(nT·μC²) + μT²·VC/(nC·μC⁴).
 * `controlMeanForRelative` replaces μC in the relative form when CUPED adjusted the means: PostHog
 * divides by the unadjusted control mean there (a plug-in), both in Δ and in W.
 */
export function effect(test: Moments, control: Moments, type: DifferenceType, controlMeanForRelative?: number): Effect {
  const absolute = test.mean - control.mean;
  if (type === 'ABSOLUTE') {
    return { delta: absolute, variance: test.variance / test.n + control.variance / control.n };
  }
  const base = controlMeanForRelative ?? control.mean;
  return {
    delta: absolute / base,
    variance: test.variance / (test.n * base ** 2) + (test.mean ** 2 * control.variance) / (control.n * base ** 4),
  };
}
