import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExperimentStatsError, funnelExperimentStats, funnelSignificance } from '../../../src/stats';
import type { FunnelVariantInput } from '../../../src/stats';

const v = (key: string, success: number, failure: number): FunnelVariantInput => ({ key, success, failure });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('funnelExperimentStats', () => {
  it("reproduces PostHog's test_calculate_results", () => {
    const result = funnelExperimentStats([v('control', 100, 18), v('test', 100, 10)]);
    expect(result.insight).toBe('FUNNELS');
    expect(result.probability.test).toBeCloseTo(0.918, 2);
    expect(result.probability.control + result.probability.test).toBeCloseTo(1, 12);
    expect(result.significance_code).toBe('significant');
    expect(result.significant).toBe(true);
    expect(Math.abs(result.expected_loss - 0.0016)).toBeLessThan(5e-4);
    expect(result.credible_intervals.control[0]).toBeCloseTo(0.7715, 3);
    expect(result.credible_intervals.control[1]).toBeCloseTo(0.901, 3);
    expect(result.credible_intervals.test[0]).toBeCloseTo(0.8405, 3);
    expect(result.credible_intervals.test[1]).toBeCloseTo(0.9494, 3);
    expect(result.variants).toEqual([
      { key: 'control', success_count: 100, failure_count: 18 },
      { key: 'test', success_count: 100, failure_count: 10 },
    ]);
  });

  it('declares control the winner when it is better (PostHog: control_is_significant)', () => {
    const result = funnelExperimentStats([v('test', 100, 18), v('control', 100, 10)]);
    expect(result.variants[0].key).toBe('control');
    expect(result.probability.control).toBeCloseTo(0.918, 2);
    expect(result.significance_code).toBe('significant');
    expect(Math.abs(result.expected_loss - 0.0016)).toBeLessThan(5e-4);
  });

  it('handles many variants (PostHog: many_variants_control_is_significant)', () => {
    const tests = [20, 21, 22, 23, 24, 25].map((failures, i) => v(`test_${i + 1}`, 100, failures));
    const result = funnelExperimentStats([v('control', 100, 10), ...tests]);
    expect(result.probability.control).toBeCloseTo(0.901, 2);
    expect(result.significance_code).toBe('significant');
    expect(Math.abs(result.expected_loss - 0.0008)).toBeLessThan(5e-4);
    expect(Object.values(result.probability).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('adds the frequentist view and the sample-ratio check', () => {
    const result = funnelExperimentStats([v('control', 96, 104), v('test', 168, 132)], { split: { control: 40, test: 60 } });
    expect(result.frequentist.comparisons.test.p_value).toBeCloseTo(0.0792, 4);
    expect(result.frequentist.rates).toEqual({ control: 0.48, test: 0.56 });
    expect(result.sample_ratio_mismatch.expected).toEqual({ control: 200, test: 300 });
    expect(result.sample_ratio_mismatch.mismatch).toBe(false);
  });

  it('flags a sample ratio mismatch against the configured split', () => {
    const result = funnelExperimentStats([v('control', 500, 500), v('test', 400, 400)]);
    expect(result.sample_ratio_mismatch.p_value).toBeLessThan(0.001);
    expect(result.sample_ratio_mismatch.mismatch).toBe(true);
  });

  it('checks the sample ratio on explicit exposures when given', () => {
    // Funnel entrants match 50/50, but the flag's exposures do not.
    const result = funnelExperimentStats([v('control', 50, 950), v('test', 60, 940)], {
      exposures: { control: 1500, test: 1000 },
    });
    expect(result.sample_ratio_mismatch.observed).toEqual({ control: 1500, test: 1000 });
    expect(result.sample_ratio_mismatch.mismatch).toBe(true);
    expect(() => funnelExperimentStats([v('control', 1, 1), v('test', 1, 1)], { exposures: { control: -1 } })).toThrow(
      ExperimentStatsError,
    );
  });

  it('is deterministic and never touches Math.random', () => {
    vi.spyOn(Math, 'random').mockImplementation(() => {
      throw new Error('Math.random used');
    });
    const input = [v('control', 130, 65), v('a', 120, 60), v('b', 110, 52), v('c', 100, 46)];
    const first = funnelExperimentStats(input);
    const second = funnelExperimentStats(input);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });

  it('returns plain JSON (no NaN, Infinity or undefined)', () => {
    for (const input of [
      [v('control', 0, 0), v('test', 0, 0)],
      [v('control', 0, 150), v('test', 150, 0)],
      [v('control', 100, 18), v('test', 100, 10)],
    ]) {
      const result = funnelExperimentStats(input);
      expect(JSON.parse(JSON.stringify(result))).toEqual(result);
    }
  });

  it('copes with zero counts', () => {
    const result = funnelExperimentStats([v('control', 0, 0), v('test', 0, 0)]);
    expect(result.probability.test).toBeCloseTo(0.5, 12);
    expect(result.significance_code).toBe('not_enough_exposure');
    expect(result.expected_loss).toBe(1);
    expect(result.credible_intervals.test[0]).toBeCloseTo(0.025, 12);
    expect(result.credible_intervals.test[1]).toBeCloseTo(0.975, 12);
    expect(result.frequentist.rates.test).toBeNull();
    expect(result.frequentist.comparisons.test.p_value).toBeNull();
    expect(result.sample_ratio_mismatch.mismatch).toBe(false);
  });

  it('supports another control key', () => {
    const result = funnelExperimentStats([v('a', 100, 10), v('base', 100, 18)], { controlKey: 'base' });
    expect(result.variants.map((x) => x.key)).toEqual(['base', 'a']);
  });

  it('rejects unusable input with typed errors', () => {
    const codeOf = (fn: () => unknown): string | undefined => {
      try {
        fn();
      } catch (error) {
        return error instanceof ExperimentStatsError ? error.code : 'other';
      }
      return undefined;
    };
    expect(codeOf(() => funnelExperimentStats([v('control', 5, 5)]))).toBe('no_data');
    expect(codeOf(() => funnelExperimentStats([v('a', 5, 5), v('b', 5, 5)]))).toBe('no_data');
    expect(codeOf(() => funnelExperimentStats([]))).toBe('no_data');
    expect(codeOf(() => funnelExperimentStats([v('control', 5, 5), v('control', 1, 1)]))).toBe('invalid_input');
    expect(codeOf(() => funnelExperimentStats([v('control', -1, 5), v('t', 1, 1)]))).toBe('invalid_input');
    expect(codeOf(() => funnelExperimentStats([v('control', 1.5, 5), v('t', 1, 1)]))).toBe('invalid_input');
    expect(codeOf(() => funnelExperimentStats([v('control', Number.NaN, 5), v('t', 1, 1)]))).toBe('invalid_input');
  });
});

describe('funnelSignificance, code by code', () => {
  const control = v('control', 100, 18);

  it('not_enough_exposure when any variant has fewer than 100 persons', () => {
    expect(funnelSignificance(control, [v('t', 50, 49)], [0.01, 0.99])).toEqual({
      code: 'not_enough_exposure',
      expectedLoss: 1,
    });
    expect(funnelSignificance(v('control', 50, 49), [v('t', 100, 10)], [0.01, 0.99]).code).toBe('not_enough_exposure');
    // Exactly 100 is enough.
    expect(funnelSignificance(v('control', 50, 50), [v('t', 90, 10)], [0.01, 0.99]).code).not.toBe('not_enough_exposure');
  });

  it('low_win_probability when neither control nor the tests reach 0.9', () => {
    expect(funnelSignificance(control, [v('t', 100, 10)], [0.2, 0.8])).toEqual({
      code: 'low_win_probability',
      expectedLoss: 1,
    });
    // PostHog: absolute loss < 1% but not significant
    const probabilities = [0.197, 0.802];
    expect(funnelSignificance(v('control', 267, 2031), [v('t', 286, 2014)], probabilities).code).toBe('low_win_probability');
  });

  it('high_loss when expected loss is 0.01 or more (PostHog: three variants almost equal, forced probabilities)', () => {
    const result = funnelSignificance(
      v('control', 130, 65),
      [v('a', 120, 60), v('b', 110, 52), v('c', 100, 46)],
      [1, 0],
    );
    expect(result.code).toBe('high_loss');
    expect(Math.abs(result.expectedLoss - 0.012)).toBeLessThan(0.005);
  });

  it('significant otherwise', () => {
    const result = funnelSignificance(control, [v('a', 100, 10), v('b', 100, 3)], [0.0004, 0.033, 0.967]);
    expect(result.code).toBe('significant');
    expect(result.expectedLoss).toBeLessThan(5e-4);
  });
});
