import { StatisticError } from './errors';
import { moments, sampleCovariance, sampleVariance, type MeanStatistic, type Moments, type ProportionStatistic } from './statistics';

/** Below this pooled covariate variance the covariate carries no information and θ is 0. */
const MIN_VARIANCE = 1e-10;

/**
 * One arm's CUPED inputs: the post-exposure metric Y (a mean or a proportion) and, per entity, the
 * pre-exposure covariate X (the same metric over the lookback window before first exposure):
 * ΣX, ΣX² and ΣXY.
 */
export interface CupedArm {
  readonly post: MeanStatistic | ProportionStatistic;
  readonly covariate: { readonly sum: number; readonly sumSquares: number; readonly sumProducts: number };
}

export interface CupedAdjusted extends Moments {
  /** The arm's mean before adjustment: the relative effect divides by the control's. */
  readonly unadjustedMean: number;
  /** 1 − Vadj/VY; 0 when nothing was adjusted. */
  readonly varianceReduction: number;
}

/** A proportion's ΣY² is ΣY (values are 0 or 1), so it becomes a mean statistic. */
function postSums(post: MeanStatistic | ProportionStatistic): { n: number; sum: number; sumSquares: number } {
  return post.kind === 'mean' ? post : { n: post.n, sum: post.sum, sumSquares: post.sum };
}

/**
 * θ for one (test, control) pair, pooling both arms as one sample of N = nT + nC (PostHog):
 * θ = cov(Y, X) / var(X), both with N − 1 divisors; 0 when var(X) < 1e-10.
 */
export function cupedTheta(test: CupedArm, control: CupedArm): number {
  if (test.post.kind !== control.post.kind) throw new StatisticError('CUPED needs both arms to be of the same type');
  const t = postSums(test.post);
  const c = postSums(control.post);
  const n = t.n + c.n;
  const varianceX = sampleVariance(n, test.covariate.sum + control.covariate.sum, test.covariate.sumSquares + control.covariate.sumSquares);
  if (!(varianceX >= MIN_VARIANCE)) return 0;
  const covariance = sampleCovariance(n, t.sum + c.sum, test.covariate.sum + control.covariate.sum, test.covariate.sumProducts + control.covariate.sumProducts);
  return covariance / varianceX;
}

/**
 * One arm adjusted by θ: μadj = μY − θ·μX (the arm's own covariate mean, no centring) and
 * Vadj = VY + θ²·VX − 2θ·cov(Y, X), floored at 1e-10.
 */
export function cupedAdjust(arm: CupedArm, theta: number): CupedAdjusted {
  const y = postSums(arm.post);
  const n = y.n;
  const meanY = n > 0 ? y.sum / n : 0;
  if (theta === 0) {
    const plain = moments(arm.post.kind === 'mean' ? arm.post : { kind: 'mean', ...y });
    return { ...plain, unadjustedMean: meanY, varianceReduction: 0 };
  }
  const varianceY = sampleVariance(n, y.sum, y.sumSquares);
  const varianceX = sampleVariance(n, arm.covariate.sum, arm.covariate.sumSquares);
  const covariance = sampleCovariance(n, y.sum, arm.covariate.sum, arm.covariate.sumProducts);
  const meanX = n > 0 ? arm.covariate.sum / n : 0;
  const adjusted = Math.max(MIN_VARIANCE, varianceY + theta ** 2 * varianceX - 2 * theta * covariance);
  const variance = n < 2 ? 0 : adjusted;
  return {
    n,
    mean: meanY - theta * meanX,
    variance,
    unadjustedMean: meanY,
    varianceReduction: varianceY > 0 ? 1 - variance / varianceY : 0,
  };
}
