import { invertCdf } from '../numeric/invert-cdf';
import { betaCdf, betaSf } from '../special/incomplete-beta';
import { logBeta } from '../special/log-gamma';
import { powerLog } from './posterior';
import type { Posterior } from './posterior';

/** Beta(alpha, beta) for alpha, beta >= 1 (the posteriors here always carry the uniform prior). */
export function betaPosterior(alpha: number, beta: number): Posterior {
  const total = alpha + beta;
  const mean = alpha / total;
  const sd = Math.sqrt((alpha * beta) / (total * total * (total + 1)));
  const mode = total > 2 ? (alpha - 1) / (total - 2) : 0.5;
  const logNorm = logBeta(alpha, beta);

  const logPdf = (x: number): number => {
    if (x < 0 || x > 1) return Number.NEGATIVE_INFINITY;
    return powerLog(alpha - 1, Math.log(x)) + powerLog(beta - 1, Math.log1p(-x)) - logNorm;
  };
  const pdf = (x: number): number => Math.exp(logPdf(x));
  const cdf = (x: number): number => betaCdf(x, alpha, beta);

  return {
    mean,
    sd,
    mode,
    lower: 0,
    upper: 1,
    logPdf,
    pdf,
    cdf,
    sf: (x) => betaSf(x, alpha, beta),
    // X·Beta(a, b) density is mean × Beta(a + 1, b) density.
    upperPartialMean: (x) => mean * betaSf(x, alpha + 1, beta),
    quantile: (p) => {
      if (p <= 0) return 0;
      if (p >= 1) return 1;
      return invertCdf({ cdf, pdf }, p, 0, 1, mean);
    },
  };
}
