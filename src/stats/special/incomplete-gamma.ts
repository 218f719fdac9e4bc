import { EPSILON, TINY, iterationBudget, nudge } from './continued-fraction';
import { logGamma } from './log-gamma';

function logPrefactor(a: number, x: number): number {
  return a * Math.log(x) - x - logGamma(a);
}

/** Power series for P(a, x); converges quickly for x < a + 1. */
function lowerSeries(a: number, x: number): number {
  let term = 1 / a;
  let sum = term;
  let denominator = a;
  const budget = iterationBudget(Math.max(a, x));
  for (let i = 0; i < budget; i++) {
    denominator += 1;
    term *= x / denominator;
    sum += term;
    if (Math.abs(term) < Math.abs(sum) * EPSILON) break;
  }
  return sum * Math.exp(logPrefactor(a, x));
}

/** Continued fraction (modified Lentz) for Q(a, x); converges for x >= a + 1. */
function upperFraction(a: number, x: number): number {
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / nudge(b);
  let h = d;
  const budget = iterationBudget(Math.max(a, x));
  for (let i = 1; i <= budget; i++) {
    const an = -i * (i - a);
    b += 2;
    d = 1 / nudge(an * d + b);
    c = nudge(b + an / c);
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return h * Math.exp(logPrefactor(a, x));
}

/**
 * Regularised lower incomplete gamma P(a, x) and its complement Q(a, x).
 * Whichever side the expansion computes directly keeps full relative
 * precision, so tiny tail probabilities (p-values) are not lost to 1 - x.
 */
export function incompleteGamma(a: number, x: number): { lower: number; upper: number } {
  if (!(a > 0) || Number.isNaN(x)) return { lower: Number.NaN, upper: Number.NaN };
  if (x <= 0) return { lower: 0, upper: 1 };
  if (x === Number.POSITIVE_INFINITY) return { lower: 1, upper: 0 };
  if (x < a + 1) {
    const lower = Math.min(1, lowerSeries(a, x));
    return { lower, upper: 1 - lower };
  }
  const upper = Math.min(1, upperFraction(a, x));
  return { lower: 1 - upper, upper };
}

export function gammaP(a: number, x: number): number {
  return incompleteGamma(a, x).lower;
}

export function gammaQ(a: number, x: number): number {
  return incompleteGamma(a, x).upper;
}
