/** Values below this are nudged away from zero so Lentz's method never divides by 0. */
export const TINY = 1e-300;
export const EPSILON = 1e-16;

/**
 * Iteration budget for the incomplete gamma / beta expansions. They need on
 * the order of sqrt(shape) terms near the mean, so a fixed small cap (as in
 * jStat's betacf, 100 iterations) silently loses accuracy for large counts.
 */
export function iterationBudget(shape: number): number {
  return Math.ceil(1000 + 50 * Math.sqrt(Math.max(shape, 0)));
}

export function nudge(value: number): number {
  return Math.abs(value) < TINY ? TINY : value;
}
