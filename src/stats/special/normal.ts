import { invertCdf } from '../numeric/invert-cdf';
import { gammaQ } from './incomplete-gamma';

const INV_SQRT_2PI = 0.3989422804014327;

export function normalPdf(z: number): number {
  return INV_SQRT_2PI * Math.exp(-0.5 * z * z);
}

/** Φ(z). Tails come from Q(1/2, z²/2) = erfc(|z|/√2) so they keep relative precision. */
export function normalCdf(z: number): number {
  if (Number.isNaN(z)) return Number.NaN;
  const tail = 0.5 * gammaQ(0.5, 0.5 * z * z);
  return z < 0 ? tail : 1 - tail;
}

/** 1 - Φ(z), computed without cancellation. */
export function normalSf(z: number): number {
  return normalCdf(-z);
}

/** Abramowitz & Stegun 26.2.23 (|error| < 4.5e-4): only a starting point for Newton. */
function roughQuantile(p: number): number {
  const q = p < 0.5 ? p : 1 - p;
  const t = Math.sqrt(-2 * Math.log(q));
  const x = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
  return p < 0.5 ? -x : x;
}

/** Φ⁻¹(p). */
export function normalQuantile(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  if (p === 0.5) return 0;
  return invertCdf({ cdf: normalCdf, pdf: normalPdf }, p, -40, 40, roughQuantile(p));
}
