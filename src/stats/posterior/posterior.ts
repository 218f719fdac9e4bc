/**
 * A continuous, log-concave posterior over a variant's rate. Everything the
 * Bayesian calculations need, so they work the same for Beta and Gamma.
 */
export interface Posterior {
  readonly mean: number;
  readonly sd: number;
  readonly mode: number;
  /** Support bounds (upper may be +Infinity). */
  readonly lower: number;
  readonly upper: number;
  logPdf(x: number): number;
  pdf(x: number): number;
  cdf(x: number): number;
  /** P(X > x), computed without cancellation. */
  sf(x: number): number;
  /** E[X · 1{X > x}], the partial mean that expected loss needs. */
  upperPartialMean(x: number): number;
  quantile(p: number): number;
}

/** x^k with the convention 0^0 = 1 in log space: a shape of exactly 1 contributes nothing. */
export function powerLog(exponent: number, logBase: number): number {
  return exponent === 0 ? 0 : exponent * logBase;
}
