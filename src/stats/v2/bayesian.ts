import { normalCdf, normalPdf, normalQuantile } from '../special/normal';
import type { Effect } from './effect';

/** A Gaussian prior on the effect; `proper: false` is the flat (improper) prior. */
export interface GaussianPrior {
  readonly mean: number;
  readonly variance: number;
  readonly proper: boolean;
}

export const FLAT_PRIOR: GaussianPrior = { mean: 0, variance: 1, proper: false };

export interface BayesianResult {
  readonly effect: number;
  readonly stddev: number;
  readonly chanceToWin: number;
  readonly credibleInterval: readonly [number, number];
  readonly significant: boolean;
  /** [E[max(θ,0)], E[max(−θ,0)]]: the loss of keeping control, of shipping test. Not in PostHog's response. */
  readonly risk: readonly [number, number];
}

/**
 * Gaussian-effect model: the estimate Δ ~ N(θ, W). With the flat prior the posterior of θ is
 * N(Δ, W); a proper N(m₀, v₀) prior is combined by precision weighting. chance to win = P(θ > 0),
 * the credible interval is central, and the result is significant when the chance to win leaves
 * [1 − ciLevel, ciLevel] (PostHog's rule).
 */
export function gaussianEffectTest(observed: Effect, ciLevel: number, prior: GaussianPrior = FLAT_PRIOR): BayesianResult {
  let mean = observed.delta;
  let variance = observed.variance;
  if (prior.proper) {
    const precision = 1 / prior.variance + 1 / observed.variance;
    mean = (prior.mean / prior.variance + observed.delta / observed.variance) / precision;
    variance = 1 / precision;
  }
  const stddev = Math.sqrt(variance);
  const chanceToWin = normalCdf(mean / stddev);
  const z = normalQuantile(1 - (1 - ciLevel) / 2);
  const positivePart = mean * chanceToWin + stddev * normalPdf(mean / stddev);
  return {
    effect: mean,
    stddev,
    chanceToWin,
    credibleInterval: [mean - z * stddev, mean + z * stddev],
    significant: chanceToWin > ciLevel || chanceToWin < 1 - ciLevel,
    risk: [positivePart, positivePart - mean],
  };
}

/**
 * GrowthBook states a prior on the relative scale; for an absolute effect it is rescaled by the
 * control mean so the same belief holds in the metric's units.
 */
export function priorForAbsolute(prior: GaussianPrior, controlMean: number): GaussianPrior {
  if (!prior.proper) return prior;
  return { mean: prior.mean * Math.abs(controlMean), variance: prior.variance * controlMean ** 2, proper: true };
}
