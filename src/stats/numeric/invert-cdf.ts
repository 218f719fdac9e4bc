const MAX_STEPS = 400;

export interface Invertible {
  cdf(x: number): number;
  pdf(x: number): number;
}

/**
 * Solves cdf(x) = p inside a bracket [lo, hi] with cdf(lo) <= p <= cdf(hi).
 * Newton steps are taken when they stay inside the (shrinking) bracket and
 * bisection otherwise, so it always converges and never depends on anything
 * but its arguments.
 */
export function invertCdf(dist: Invertible, p: number, lo: number, hi: number, start: number): number {
  let low = lo;
  let high = hi;
  let x = start > low && start < high ? start : low + (high - low) / 2;
  for (let step = 0; step < MAX_STEPS; step++) {
    const error = dist.cdf(x) - p;
    if (error === 0) return x;
    if (error < 0) low = x;
    else high = x;
    const density = dist.pdf(x);
    let next = density > 0 ? x - error / density : Number.NaN;
    if (!(next > low && next < high)) next = low + (high - low) / 2;
    const tolerance = 4 * Number.EPSILON * Math.max(Math.abs(next), Number.MIN_VALUE);
    if (Math.abs(next - x) <= tolerance || high - low <= tolerance) return next;
    x = next;
  }
  return x;
}
