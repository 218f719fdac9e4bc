import { betaPosterior } from '../posterior/beta';
import { incompleteBeta } from '../special/incomplete-beta';
import { logChoose } from '../special/log-gamma';

export function binomialLogPmf(k: number, n: number, p: number): number {
  if (k < 0 || k > n) return Number.NEGATIVE_INFINITY;
  if (p === 0) return k === 0 ? 0 : Number.NEGATIVE_INFINITY;
  if (p === 1) return k === n ? 0 : Number.NEGATIVE_INFINITY;
  return logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log1p(-p);
}

/** P(X <= k) for X ~ Binomial(n, p), via 1 − I_p(k + 1, n − k). */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  return incompleteBeta(p, k + 1, n - k).upper;
}

/** P(X >= k) for X ~ Binomial(n, p), via I_p(k, n − k + 1). */
export function binomialSf(k: number, n: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  return incompleteBeta(p, k, n - k + 1).lower;
}

/** R's binom.test tolerance for "as likely as the observed outcome". */
const RELATIVE_ERROR = 1 + 1e-7;

/** Smallest i in [from, to] with pred(i) true, for pred monotone false→true; to + 1 if none. */
function firstTrue(from: number, to: number, pred: (i: number) => boolean): number {
  let lo = from;
  let hi = to + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (pred(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Exact two-sided binomial test: the probability of every outcome no more
 * likely than the observed one (the method of R's binom.test and SciPy's
 * binomtest). The pmf is unimodal, so the opposite tail's cut-off is found by
 * binary search instead of summing n terms.
 */
export function binomialTestTwoSided(x: number, n: number, p: number): number {
  if (n === 0) return 1;
  if (p <= 0) return x === 0 ? 1 : 0;
  if (p >= 1) return x === n ? 1 : 0;
  const mean = n * p;
  if (x === mean) return 1;
  const cutoff = binomialLogPmf(x, n, p) + Math.log(RELATIVE_ERROR);
  const noMoreLikely = (i: number): boolean => binomialLogPmf(i, n, p) <= cutoff;
  let value: number;
  if (x < mean) {
    // The pmf is non-increasing on [ceil(mean), n].
    const first = firstTrue(Math.ceil(mean), n, noMoreLikely);
    value = binomialCdf(x, n, p) + binomialSf(first, n, p);
  } else {
    // The pmf is non-decreasing on [0, floor(mean)].
    const last = firstTrue(0, Math.floor(mean), (i) => !noMoreLikely(i)) - 1;
    value = binomialCdf(last, n, p) + binomialSf(x, n, p);
  }
  return Math.min(1, value);
}

/** Clopper–Pearson exact interval for a binomial proportion. */
export function clopperPearson(x: number, n: number, confidence: number): [number, number] {
  const tail = (1 - confidence) / 2;
  const lower = x === 0 ? 0 : betaPosterior(x, n - x + 1).quantile(tail);
  const upper = x === n ? 1 : betaPosterior(x + 1, n - x).quantile(1 - tail);
  return [lower, upper];
}
