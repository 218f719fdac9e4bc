import { EPSILON, iterationBudget, nudge } from './continued-fraction';
import { logBeta } from './log-gamma';

/** Continued fraction for I_x(a, b) (modified Lentz); converges for x < (a+1)/(a+b+2). */
function betaFraction(x: number, a: number, b: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 / nudge(1 - (qab * x) / qap);
  let h = d;
  const budget = iterationBudget(Math.max(a, b));
  for (let m = 1; m <= budget; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 / nudge(1 + aa * d);
    c = nudge(1 + aa / c);
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 / nudge(1 + aa * d);
    c = nudge(1 + aa / c);
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return h;
}

/**
 * Regularised incomplete beta I_x(a, b) (`lower`) and 1 - I_x(a, b) (`upper`).
 * The side evaluated directly by the continued fraction is the smaller tail,
 * so it keeps full relative precision.
 */
export function incompleteBeta(x: number, a: number, b: number): { lower: number; upper: number } {
  if (!(a > 0) || !(b > 0) || Number.isNaN(x)) return { lower: Number.NaN, upper: Number.NaN };
  if (x <= 0) return { lower: 0, upper: 1 };
  if (x >= 1) return { lower: 1, upper: 0 };
  const logFront = a * Math.log(x) + b * Math.log1p(-x) - logBeta(a, b);
  if (x < (a + 1) / (a + b + 2)) {
    const lower = Math.min(1, (Math.exp(logFront) * betaFraction(x, a, b)) / a);
    return { lower, upper: 1 - lower };
  }
  const upper = Math.min(1, (Math.exp(logFront) * betaFraction(1 - x, b, a)) / b);
  return { lower: 1 - upper, upper };
}

export function betaCdf(x: number, a: number, b: number): number {
  return incompleteBeta(x, a, b).lower;
}

export function betaSf(x: number, a: number, b: number): number {
  return incompleteBeta(x, a, b).upper;
}
