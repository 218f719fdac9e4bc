import { invertCdf } from '../numeric/invert-cdf';
import { incompleteBeta } from '../special/incomplete-beta';
import { logGamma } from '../special/log-gamma';
import { normalCdf, normalPdf, normalQuantile } from '../special/normal';

/** Beyond this many degrees of freedom the t distribution is the normal one to double precision. */
const NORMAL_LIMIT = 1e12;

/** Student's t density with `df` degrees of freedom. */
export function studentTPdf(t: number, df: number): number {
  if (df > NORMAL_LIMIT) return normalPdf(t);
  const logDensity =
    logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI) - ((df + 1) / 2) * Math.log1p((t * t) / df);
  return Math.exp(logDensity);
}

/** F(t; df). The tail 1/2·I_{df/(df+t²)}(df/2, 1/2) is evaluated directly so small p-values keep precision. */
export function studentTCdf(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return Number.NaN;
  if (df > NORMAL_LIMIT) return normalCdf(t);
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5).lower;
  return t < 0 ? tail : 1 - tail;
}

/** Two-sided tail probability P(|T| ≥ |t|), without the cancellation of 2·(1 − F(|t|)). */
export function studentTTwoSided(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return Number.NaN;
  if (df > NORMAL_LIMIT) return 2 * normalCdf(-Math.abs(t));
  if (!Number.isFinite(t)) return 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5).lower;
}

/** F⁻¹(p; df). */
export function studentTQuantile(p: number, df: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1 || !(df > 0)) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  if (p === 0.5) return 0;
  const z = normalQuantile(p);
  if (df > NORMAL_LIMIT) return z;
  // Heavy tails: with df = 1 the 1e-12 quantile is about 3e11.
  const bound = Math.max(1e3, Math.pow(Math.min(p, 1 - p), -1 / df) * 10);
  return invertCdf({ cdf: (t) => studentTCdf(t, df), pdf: (t) => studentTPdf(t, df) }, p, -bound, bound, z);
}
