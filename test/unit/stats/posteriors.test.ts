import { describe, expect, it } from 'vitest';
import { betaPosterior } from '../../../src/stats/posterior/beta';
import { gammaPosterior } from '../../../src/stats/posterior/gamma';

describe('Beta quantiles', () => {
  it('match the closed forms of Beta(1, b) and Beta(a, 1)', () => {
    for (const p of [0.025, 0.5, 0.975]) {
      expect(betaPosterior(1, 9).quantile(p)).toBeCloseTo(1 - (1 - p) ** (1 / 9), 13);
      expect(betaPosterior(4, 1).quantile(p)).toBeCloseTo(p ** (1 / 4), 13);
    }
    expect(betaPosterior(1, 1).quantile(0.975)).toBeCloseTo(0.975, 14);
  });

  it("reproduces PostHog's credible intervals (cross-checked there with causascientia.org)", () => {
    // [success + 1, failure + 1] → [lower, upper], values from PostHog's test_experiment_result.py
    const cases: Array<[number, number, number, number]> = [
      [101, 19, 0.7715, 0.901],
      [101, 11, 0.8405, 0.9494],
      [101, 4, 0.918, 0.9894],
      [131, 66, 0.5977, 0.729],
      [287, 2015, 0.1114, 0.1384],
      [268, 2032, 0.1037, 0.1299],
      [81, 66, 0.4703, 0.6303],
    ];
    for (const [a, b, lower, upper] of cases) {
      const posterior = betaPosterior(a, b);
      expect(Math.abs(posterior.quantile(0.025) - lower)).toBeLessThan(5e-4);
      expect(Math.abs(posterior.quantile(0.975) - upper)).toBeLessThan(5e-4);
    }
  });

  it('handles a sharply concentrated posterior', () => {
    // Beta(1, b) quantile closed form again, with b of a million.
    expect(betaPosterior(1, 1e6).quantile(0.975)).toBeCloseTo(1 - 0.025 ** 1e-6, 15);
  });
});

describe('Gamma quantiles', () => {
  it('match chi-square table values: Gamma(k, θ) = θ/2 · χ²(2k)', () => {
    // χ²(10): 0.025 → 3.247, 0.975 → 20.483 (standard tables)
    expect(gammaPosterior(5, 0.5).quantile(0.025) * 4).toBeCloseTo(3.247, 3);
    expect(gammaPosterior(5, 0.5).quantile(0.975) * 4).toBeCloseTo(20.483, 3);
  });

  it('match the exponential closed form for shape 1', () => {
    for (const p of [0.025, 0.5, 0.975]) expect(gammaPosterior(1, 3).quantile(p)).toBeCloseTo(-3 * Math.log(1 - p), 12);
  });

  it("reproduces PostHog's trend credible intervals", () => {
    // [count, absolute exposure] → [lower, upper], from PostHog's test_experiment_result.py
    const cases: Array<[number, number, number, number]> = [
      [20, 200, 0.065, 0.1544],
      [30, 200, 0.1053, 0.2141],
      [2, 200, 0.0031, 0.0361],
      [1, 200, 0.0012, 0.0279],
      [250, 200, 1.1045, 1.4149],
      [50, 260, 0.146, 0.2535],
      [30, 360, 0.0585, 0.119],
    ];
    for (const [count, exposure, lower, upper] of cases) {
      const posterior = gammaPosterior(count + 1, 1 / exposure);
      expect(Math.abs(posterior.quantile(0.025) - lower)).toBeLessThan(5e-4);
      expect(Math.abs(posterior.quantile(0.975) - upper)).toBeLessThan(5e-4);
    }
  });
});

describe('posterior tails', () => {
  it('E[X·1{X > x}] is the mean at the lower edge and matches a closed form', () => {
    const beta = betaPosterior(3, 5);
    expect(beta.upperPartialMean(0)).toBeCloseTo(3 / 8, 14);
    // Exponential(θ = 2): E[X·1{X > x}] = (x + 2) e^{−x/2}
    const exponential = gammaPosterior(1, 2);
    expect(exponential.upperPartialMean(3)).toBeCloseTo(5 * Math.exp(-1.5), 13);
  });
});
