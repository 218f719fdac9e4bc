import {
  EXPECTED_LOSS_SIGNIFICANCE_LEVEL,
  EXPOSURE_THRESHOLD,
  MIN_PROBABILITY_FOR_SIGNIFICANCE,
} from '../constants';
import { expectedLoss } from '../bayes/expected-loss';
import { betaPosterior } from '../posterior/beta';
import type { Posterior } from '../posterior/posterior';
import type { FunnelVariantInput, SignificanceCode } from '../types';

/** PostHog's prior: Beta(1, 1), i.e. uniform over the conversion rate. */
export function funnelPosterior(variant: FunnelVariantInput): Posterior {
  return betaPosterior(variant.success + 1, variant.failure + 1);
}

function conversionRate(variant: FunnelVariantInput): number {
  return variant.success / (variant.success + variant.failure);
}

/**
 * PostHog's funnel decision, in its order: exposure of every variant, then
 * win probability (control and the test variants together must not both be
 * below 0.9), then expected loss of choosing the better of control and the
 * best test variant (by observed rate) over the other. Loss is 1 when a
 * check stops before it is computed.
 */
export function funnelSignificance(
  control: FunnelVariantInput,
  tests: readonly FunnelVariantInput[],
  probabilities: readonly number[],
): { code: SignificanceCode; expectedLoss: number } {
  for (const variant of [...tests, control]) {
    if (variant.success + variant.failure < EXPOSURE_THRESHOLD) {
      return { code: 'not_enough_exposure', expectedLoss: 1 };
    }
  }
  const testProbability = probabilities.slice(1).reduce((sum, p) => sum + p, 0);
  if (probabilities[0] < MIN_PROBABILITY_FOR_SIGNIFICANCE && testProbability < MIN_PROBABILITY_FOR_SIGNIFICANCE) {
    return { code: 'low_win_probability', expectedLoss: 1 };
  }
  let best = tests[0];
  for (const variant of tests) if (conversionRate(variant) > conversionRate(best)) best = variant;
  const [winner, runnerUp] = conversionRate(best) > conversionRate(control) ? [best, control] : [control, best];
  const loss = expectedLoss(funnelPosterior(winner), funnelPosterior(runnerUp));
  return {
    code: loss >= EXPECTED_LOSS_SIGNIFICANCE_LEVEL ? 'high_loss' : 'significant',
    expectedLoss: loss,
  };
}
