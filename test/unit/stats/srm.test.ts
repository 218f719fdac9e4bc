import { describe, expect, it } from 'vitest';
import { chiSquareGoodnessOfFit, sampleRatioMismatch } from '../../../src/stats/srm';
import { ExperimentStatsError } from '../../../src/stats/errors';

const exposures = (entries: Record<string, number>) =>
  Object.entries(entries).map(([key, exposure]) => ({ key, exposure }));

describe('chi-square goodness of fit', () => {
  it("reproduces Mendel's dihybrid cross (9:3:3:1; NDSU PLSC 431: χ² = 0.47, P > 0.90)", () => {
    const result = chiSquareGoodnessOfFit([315, 108, 101, 32], [9, 3, 3, 1]);
    expect(result.statistic).toBeCloseTo(0.47, 2);
    expect(result.degrees_of_freedom).toBe(3);
    expect(result.p_value).toBeCloseTo(0.9254, 4);
  });

  it('matches chi-square table critical values', () => {
    // 3.841 (df 1, α 0.05), 7.815 (df 3, α 0.05), 10.828 (df 1, α 0.001)
    expect(chiSquareGoodnessOfFit([100 + Math.sqrt(3.841458820694124 * 50), 100 - Math.sqrt(3.841458820694124 * 50)], [1, 1]).p_value).toBeCloseTo(0.05, 12);
    const d = Math.sqrt(10.827566170662733 * 250);
    expect(chiSquareGoodnessOfFit([500 + d, 500 - d], [1, 1]).p_value).toBeCloseTo(0.001, 12);
  });
});

describe('sample ratio mismatch', () => {
  it('does not flag a healthy 50/50 split', () => {
    const result = sampleRatioMismatch(exposures({ control: 5040, test: 4960 }), { control: 50, test: 50 });
    expect(result.mismatch).toBe(false);
    expect(result.expected).toEqual({ control: 5000, test: 5000 });
    expect(result.chi_square).toBeCloseTo(0.64, 12);
  });

  it('flags p < 0.001 (the Mendel counts tested against an equal split: χ² = 322.5)', () => {
    const result = sampleRatioMismatch(exposures({ a: 315, b: 108, c: 101, d: 32 }));
    expect(result.chi_square).toBeCloseTo(322.518, 3);
    expect(result.p_value).toBeLessThan(1e-60);
    expect(result.mismatch).toBe(true);
    expect(result.threshold).toBe(0.001);
  });

  it('uses the configured split, normalised by its sum', () => {
    const percent = sampleRatioMismatch(exposures({ control: 315, test: 108 }), { control: 75, test: 25 });
    const ratio = sampleRatioMismatch(exposures({ control: 315, test: 108 }), { control: 3, test: 1 });
    expect(percent.expected_percentages).toEqual({ control: 75, test: 25 });
    expect(ratio.p_value).toBe(percent.p_value);
    expect(percent.mismatch).toBe(false);
  });

  it('counts variants missing on either side', () => {
    const unseen = sampleRatioMismatch(exposures({ control: 500 }), { control: 50, test: 50 });
    expect(unseen.observed).toEqual({ control: 500, test: 0 });
    expect(unseen.mismatch).toBe(true);
    const unplanned = sampleRatioMismatch(exposures({ control: 500, rogue: 3 }), { control: 100 });
    expect(unplanned).toMatchObject({ chi_square: null, p_value: 0, mismatch: true });
  });

  it('is quiet without exposures and rejects bad splits', () => {
    expect(sampleRatioMismatch(exposures({ control: 0, test: 0 }))).toMatchObject({ p_value: 1, mismatch: false });
    expect(() => sampleRatioMismatch(exposures({ control: 1 }), { control: -5 })).toThrow(ExperimentStatsError);
    expect(() => sampleRatioMismatch(exposures({ control: 1 }), { control: 0 })).toThrow(ExperimentStatsError);
  });
});
