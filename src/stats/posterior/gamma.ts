import { invertCdf } from '../numeric/invert-cdf';
import { incompleteGamma } from '../special/incomplete-gamma';
import { logGamma } from '../special/log-gamma';
import { powerLog } from './posterior';
import type { Posterior } from './posterior';

/** Gamma(shape, scale) for shape >= 1, scale > 0. */
export function gammaPosterior(shape: number, scale: number): Posterior {
  const mean = shape * scale;
  const sd = Math.sqrt(shape) * scale;
  const mode = (shape - 1) * scale;
  const logNorm = logGamma(shape) + shape * Math.log(scale);

  const logPdf = (x: number): number => {
    if (x < 0) return Number.NEGATIVE_INFINITY;
    return powerLog(shape - 1, Math.log(x)) - x / scale - logNorm;
  };
  const pdf = (x: number): number => Math.exp(logPdf(x));
  const cdf = (x: number): number => incompleteGamma(shape, x / scale).lower;

  return {
    mean,
    sd,
    mode,
    lower: 0,
    upper: Number.POSITIVE_INFINITY,
    logPdf,
    pdf,
    cdf,
    sf: (x) => incompleteGamma(shape, x / scale).upper,
    // X·Gamma(k, θ) density is mean × Gamma(k + 1, θ) density.
    upperPartialMean: (x) => mean * incompleteGamma(shape + 1, x / scale).upper,
    quantile: (p) => {
      if (p <= 0) return 0;
      if (p >= 1) return Number.POSITIVE_INFINITY;
      let high = mean + 10 * sd;
      while (cdf(high) < p) high *= 2;
      return invertCdf({ cdf, pdf }, p, 0, high, mean);
    },
  };
}
