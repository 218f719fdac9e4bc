/**
 * Sufficient statistics of one variant, as the results query produces them: per exposed entity a
 * value v (zeros included), summed as n, Σv and Σv². A proportion is a mean whose values are 0 or 1;
 * a ratio carries the numerator m and the denominator d of every entity and their cross product.
 */
export interface MeanStatistic {
  readonly kind: 'mean';
  readonly n: number;
  readonly sum: number;
  readonly sumSquares: number;
}

export interface ProportionStatistic {
  readonly kind: 'proportion';
  readonly n: number;
  /** Entities that converted. */
  readonly sum: number;
}

export interface RatioStatistic {
  readonly kind: 'ratio';
  readonly n: number;
  readonly numerator: { readonly sum: number; readonly sumSquares: number };
  readonly denominator: { readonly sum: number; readonly sumSquares: number };
  /** Σ m·d over entities. */
  readonly sumProducts: number;
}

export type VariantStatistic = MeanStatistic | ProportionStatistic | RatioStatistic;

/** The point estimate and the per-entity variance a test needs: a mean, a rate or a ratio. */
export interface Moments {
  readonly n: number;
  readonly mean: number;
  readonly variance: number;
}

export const meanStatistic = (n: number, sum: number, sumSquares: number): MeanStatistic => ({ kind: 'mean', n, sum, sumSquares });
export const proportionStatistic = (n: number, sum: number): ProportionStatistic => ({ kind: 'proportion', n, sum });

/** Sample variance with the n−1 divisor; 0 for fewer than two observations. */
export function sampleVariance(n: number, sum: number, sumSquares: number): number {
  if (n < 2) return 0;
  return (sumSquares - (sum * sum) / n) / (n - 1);
}

/** Sample covariance of two per-entity series from their sums and Σxy (n−1 divisor). */
export function sampleCovariance(n: number, sumX: number, sumY: number, sumProducts: number): number {
  if (n < 2) return 0;
  return (sumProducts - (sumX * sumY) / n) / (n - 1);
}

/**
 * Mean: Σv/n with the sample variance. Proportion: p with p(1−p), no n−1 (as both PostHog and
 * GrowthBook do). Ratio: R = Σm/Σd with the delta-method variance of R per entity,
 * Vm/μd² + μm²·Vd/μd⁴ − 2·μm·cov/μd³.
 */
export function moments(stat: VariantStatistic): Moments {
  const n = stat.n;
  if (n <= 0) return { n, mean: 0, variance: 0 };
  switch (stat.kind) {
    case 'mean':
      return { n, mean: stat.sum / n, variance: sampleVariance(n, stat.sum, stat.sumSquares) };
    case 'proportion': {
      const p = stat.sum / n;
      return { n, mean: p, variance: p * (1 - p) };
    }
    case 'ratio': {
      const mu = stat.numerator.sum / n;
      const md = stat.denominator.sum / n;
      const vm = sampleVariance(n, stat.numerator.sum, stat.numerator.sumSquares);
      const vd = sampleVariance(n, stat.denominator.sum, stat.denominator.sumSquares);
      const cov = sampleCovariance(n, stat.numerator.sum, stat.denominator.sum, stat.sumProducts);
      if (md === 0) return { n, mean: 0, variance: 0 };
      const variance = vm / md ** 2 + (mu ** 2 * vd) / md ** 4 - (2 * mu * cov) / md ** 3;
      return { n, mean: mu / md, variance };
    }
  }
}
