/**
 * Quantile with linear interpolation between order statistics (position p·(n−1)), the definition
 * PostHog's outlier tests are written against. `sorted` must be ascending.
 */
export function quantileOfSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = Math.min(Math.max(p, 0), 1) * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  const lo = sorted[below] ?? Number.NaN;
  const hi = sorted[above] ?? Number.NaN;
  return lo + (hi - lo) * (position - below);
}

export interface OutlierBounds {
  readonly lower: number;
  readonly upper: number;
}

/**
 * The clamp bounds of a mean metric: quantiles over every exposed entity of every variant; a
 * missing percentile leaves that side open. With `ignoreZeros` the upper bound is taken over the
 * non-zero values only, so a metric most entities never touch is not clamped to 0.
 */
export function outlierBounds(
  values: readonly number[],
  lowerPercentile: number | null | undefined,
  upperPercentile: number | null | undefined,
  ignoreZeros = false,
): OutlierBounds {
  const sorted = [...values].sort((a, b) => a - b);
  const lower = lowerPercentile == null ? Number.NEGATIVE_INFINITY : quantileOfSorted(sorted, lowerPercentile);
  const upperSource = ignoreZeros ? sorted.filter((v) => v !== 0) : sorted;
  const upper = upperPercentile == null ? Number.POSITIVE_INFINITY : quantileOfSorted(upperSource, upperPercentile);
  return { lower: Number.isNaN(lower) ? Number.NEGATIVE_INFINITY : lower, upper: Number.isNaN(upper) ? Number.POSITIVE_INFINITY : upper };
}

export function clamp(value: number, bounds: OutlierBounds): number {
  return Math.min(Math.max(value, bounds.lower), bounds.upper);
}
