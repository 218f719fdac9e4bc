import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExperimentStatsError, posthogPoissonPValue, trendExperimentStats, trendSignificance } from '../../../src/stats';
import type { TrendVariantInput, TrendVariantStats } from '../../../src/stats';

const v = (key: string, count: number, exposure: number): TrendVariantInput => ({ key, count, exposure });
const s = (key: string, count: number, exposure: number, absolute = 200): TrendVariantStats => ({
  key,
  count,
  exposure,
  absolute_exposure: absolute,
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** PostHog's p-value summed term by term with exact BigInt binomials, for share = num/den. */
function bruteForcePValue(testCount: number, total: number, num: bigint, den: bigint): number {
  let choose = 1n;
  let low = 0n;
  let high = 0n;
  for (let i = 0; i <= total; i++) {
    const term = choose * num ** BigInt(i) * (den - num) ** BigInt(total - i);
    if (i <= testCount) low += term;
    if (i >= testCount) high += term;
    choose = (choose * BigInt(total - i)) / BigInt(i + 1);
  }
  const scale = Number(den ** BigInt(total));
  return Math.min(1, (2 * Number(low < high ? low : high)) / scale);
}

describe('posthogPoissonPValue', () => {
  it("reproduces PostHog's expected p-values (evanmiller.org/ab-testing/poisson-means.html)", () => {
    expect(posthogPoissonPValue(20, 1, 30, 1)).toBeCloseTo(0.2, 2);
    expect(posthogPoissonPValue(2, 1, 1, 1)).toBeCloseTo(1, 2);
    expect(posthogPoissonPValue(20, 1, 26, 1)).toBeCloseTo(0.46, 2);
    expect(posthogPoissonPValue(250, 1, 180, 1)).toBeCloseTo(0.001, 3);
    expect(posthogPoissonPValue(50, 1.3, 30, 1.8)).toBeCloseTo(0, 3);
  });

  it('equals the exact term-by-term sum', () => {
    expect(posthogPoissonPValue(20, 1, 30, 1)).toBeCloseTo(bruteForcePValue(30, 50, 1n, 2n), 13);
    expect(posthogPoissonPValue(50, 13, 30, 18)).toBeCloseTo(bruteForcePValue(30, 80, 18n, 31n), 13);
    expect(posthogPoissonPValue(0, 1, 0, 1)).toBe(1);
  });
});

describe('trendExperimentStats', () => {
  it("reproduces PostHog's test_calculate_results", () => {
    const result = trendExperimentStats([v('control', 20, 200), v('test', 30, 200)]);
    expect(result.insight).toBe('TRENDS');
    expect(result.probability.test).toBeCloseTo(0.92, 1);
    expect(result.significance_code).toBe('high_p_value');
    expect(result.p_value).toBeCloseTo(0.2, 2);
    expect(result.credible_intervals.control[0]).toBeCloseTo(0.065, 3);
    expect(result.credible_intervals.control[1]).toBeCloseTo(0.1544, 3);
    expect(result.credible_intervals.test[0]).toBeCloseTo(0.1053, 3);
    expect(result.credible_intervals.test[1]).toBeCloseTo(0.2141, 3);
  });

  it("reproduces PostHog's results with different exposures", () => {
    const result = trendExperimentStats([v('control', 50, 260), v('b', 30, 360), v('c', 20, 140)]);
    expect(result.variants.map((x) => x.exposure)).toEqual([1, 360 / 260, 140 / 260]);
    expect(result.variants.map((x) => x.absolute_exposure)).toEqual([260, 360, 140]);
    expect(result.probability.control).toBeCloseTo(0.86, 1);
    expect(result.probability.b).toBeCloseTo(0, 1);
    expect(result.probability.c).toBeCloseTo(0.13, 1);
    expect(result.significance_code).toBe('low_win_probability');
    expect(result.p_value).toBe(1);
    expect(result.credible_intervals.b[0]).toBeCloseTo(0.0585, 3);
    expect(result.credible_intervals.c[1]).toBeCloseTo(0.2206, 3);
  });

  it('is significant with a clear, well-exposed winner', () => {
    const result = trendExperimentStats([v('control', 100, 1000), v('test', 160, 1000)]);
    expect(result.significance_code).toBe('significant');
    expect(result.significant).toBe(true);
    expect(result.p_value).toBeLessThan(0.05);
    expect(result.frequentist.comparisons.test.significant).toBe(true);
    expect(result.frequentist.comparisons.test.rate_ratio).toBeCloseTo(1.6, 12);
  });

  it('treats zero exposure as PostHog does (ratio 1) and stays JSON-safe', () => {
    const result = trendExperimentStats([v('control', 0, 0), v('test', 5, 0)]);
    expect(result.variants.map((x) => x.exposure)).toEqual([1, 1]);
    expect(result.significance_code).toBe('not_enough_exposure');
    expect(result.frequentist.rates).toEqual({ control: null, test: null });
    expect(result.frequentist.comparisons.test.p_value).toBeNull();
    expect(result.sample_ratio_mismatch.mismatch).toBe(false);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
    const oneSided = trendExperimentStats([v('control', 3, 150), v('test', 0, 0)]);
    expect(oneSided.variants[1].exposure).toBe(1);
    expect(oneSided.sample_ratio_mismatch.mismatch).toBe(true);
    expect(JSON.parse(JSON.stringify(oneSided))).toEqual(oneSided);
  });

  it('is deterministic and never touches Math.random', () => {
    vi.spyOn(Math, 'random').mockImplementation(() => {
      throw new Error('Math.random used');
    });
    const input = [v('control', 20, 200), v('b', 26, 200), v('c', 19, 200)];
    expect(JSON.stringify(trendExperimentStats(input))).toBe(JSON.stringify(trendExperimentStats(input)));
  });

  it('rejects unusable input with typed errors', () => {
    expect(() => trendExperimentStats([v('control', 1, 100)])).toThrow(ExperimentStatsError);
    expect(() => trendExperimentStats([v('control', 1, -1), v('t', 1, 1)])).toThrow(/exposure/);
    expect(() => trendExperimentStats([v('control', 1, Number.POSITIVE_INFINITY), v('t', 1, 1)])).toThrow(ExperimentStatsError);
    expect(() => trendExperimentStats([v('control', 0.5, 1), v('t', 1, 1)])).toThrow(/count/);
  });
});

describe('trendSignificance, code by code', () => {
  it('not_enough_exposure below 100 exposed persons', () => {
    expect(trendSignificance(s('control', 20, 1), [s('t', 30, 1, 99)], [0.01, 0.99])).toEqual({
      code: 'not_enough_exposure',
      pValue: 1,
    });
    expect(trendSignificance(s('control', 20, 1, 99), [s('t', 30, 1)], [0.01, 0.99]).code).toBe('not_enough_exposure');
  });

  it('low_win_probability (PostHog: target variants underperform, forced probabilities)', () => {
    const result = trendSignificance(s('control', 250, 1), [s('b', 180, 1), s('c', 50, 1)], [0.5, 0.4, 0.1]);
    expect(result).toEqual({ code: 'low_win_probability', pValue: 1 });
  });

  it('significant when control clearly wins (PostHog: same test, control probability 0.95)', () => {
    const result = trendSignificance(s('control', 250, 1), [s('b', 100, 1), s('c', 50, 1)], [0.95, 0.03, 0.02]);
    expect(result.code).toBe('significant');
    expect(result.pValue).toBeCloseTo(0, 3);
  });

  it('high_p_value when the p-value is 0.05 or more', () => {
    const result = trendSignificance(s('control', 20, 1), [s('t', 30, 1)], [0.08, 0.92]);
    expect(result.code).toBe('high_p_value');
    expect(result.pValue).toBeCloseTo(0.2026, 4);
  });
});
