import { describe, expect, it } from 'vitest';
import { probabilitiesToBeBest } from '../../../src/stats/bayes/probability-best';
import { betaPosterior } from '../../../src/stats/posterior/beta';
import { gammaPosterior } from '../../../src/stats/posterior/gamma';
import { normalCdf } from '../../../src/stats/special/normal';
import { betaProbabilityBBeatsA, gammaProbabilityBBeatsA } from './support/closed-forms';
import { betaSampler, gammaSampler, simulateWinShares } from './support/simulate';

const funnel = (success: number, failure: number) => betaPosterior(success + 1, failure + 1);
const trend = (count: number, exposure: number) => gammaPosterior(count + 1, 1 / exposure);

describe('probability to be best: Beta posteriors', () => {
  it("agrees with Evan Miller's closed form for two variants", () => {
    const cases: Array<[number, number, number, number]> = [
      [100, 18, 100, 10],
      [267, 2031, 286, 2014],
      [0, 0, 0, 5],
      [3, 40, 9, 41],
    ];
    for (const [sA, fA, sB, fB] of cases) {
      const [, pB] = probabilitiesToBeBest([funnel(sA, fA), funnel(sB, fB)]);
      expect(pB).toBeCloseTo(betaProbabilityBBeatsA(sA + 1, fA + 1, sB + 1, fB + 1), 10);
    }
  });

  it("reproduces PostHog's expected probabilities (test_experiment_result.py)", () => {
    expect(probabilitiesToBeBest([funnel(100, 18), funnel(100, 10)])[1]).toBeCloseTo(0.918, 2);
    const three = probabilitiesToBeBest([funnel(100, 18), funnel(100, 10), funnel(100, 3)]);
    expect(three[1]).toBeCloseTo(0.033, 2);
    expect(three[2]).toBeCloseTo(0.967, 2);
    const four = probabilitiesToBeBest([funnel(130, 65), funnel(120, 60), funnel(110, 52), funnel(100, 46)]);
    [0.168, 0.174, 0.292, 0.365].forEach((p, i) => expect(Math.abs(four[i] - p)).toBeLessThan(0.005));
    const eight = probabilitiesToBeBest(
      [18, 17, 16, 30, 31, 29, 32, 33].map((failures) => funnel(100, failures)),
    );
    [0.241, 0.322, 0.425, 0.002, 0.001, 0.004, 0.001, 0.0].forEach((p, i) =>
      expect(Math.abs(eight[i] - p)).toBeLessThan(0.005),
    );
  });

  it('agrees with a seeded simulation for several variants', () => {
    const variants: Array<[number, number]> = [
      [120, 60],
      [130, 65],
      [110, 52],
      [100, 46],
    ];
    const exact = probabilitiesToBeBest(variants.map(([s, f]) => funnel(s, f)));
    const simulated = simulateWinShares(
      variants.map(([s, f]) => betaSampler(s + 1, f + 1)),
      20_000,
      42,
    );
    // 20k draws: standard error ≤ 0.0036.
    exact.forEach((p, i) => expect(Math.abs(p - simulated[i])).toBeLessThan(0.015));
  });

  it('sums to 1 and is symmetric for identical variants', () => {
    const probabilities = probabilitiesToBeBest([funnel(50, 50), funnel(50, 50), funnel(50, 50)]);
    expect(probabilities.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    probabilities.forEach((p) => expect(p).toBeCloseTo(1 / 3, 10));
  });

  it('resolves a very sharp posterior against a wide one', () => {
    // A million-person control against a 20-person variant. Reference: Evan
    // Miller's sum evaluated with mpmath at 40 digits (summing a million logs
    // in doubles, as the helper does, is itself only good to ~1e-9 here).
    const [, p] = probabilitiesToBeBest([funnel(100_000, 900_000), funnel(3, 17)]);
    expect(p).toBeCloseTo(0.8480294992005016, 12);
  });
});

describe('probability to be best: Gamma posteriors', () => {
  it("agrees with Evan Miller's closed form for count data", () => {
    const cases: Array<[number, number, number, number]> = [
      [20, 1, 30, 1],
      [2, 1, 1, 1],
      [14, 1, 29, 1],
      [50, 1.3, 30, 1.8],
      [0, 1, 0, 2],
    ];
    for (const [cA, eA, cB, eB] of cases) {
      const [, pB] = probabilitiesToBeBest([trend(cA, eA), trend(cB, eB)]);
      expect(pB).toBeCloseTo(gammaProbabilityBBeatsA(cA + 1, eA, cB + 1, eB), 10);
    }
  });

  it("reproduces PostHog's expected probabilities", () => {
    expect(probabilitiesToBeBest([trend(20, 1), trend(30, 1)])[1]).toBeCloseTo(0.92, 1);
    expect(probabilitiesToBeBest([trend(2, 1), trend(1, 1)])[1]).toBeCloseTo(0.31, 1);
    // PostHog: probability_B_beats_A_count_data(15, 1, 30, 1) ≈ 0.988 (shapes, not counts)
    expect(probabilitiesToBeBest([gammaPosterior(15, 1), gammaPosterior(30, 1)])[1]).toBeCloseTo(0.988, 2);
    const three = probabilitiesToBeBest([trend(20, 1), trend(26, 1), trend(19, 1)]);
    [0.16, 0.72, 0.12].forEach((p, i) => expect(Math.abs(three[i] - p)).toBeLessThan(0.01));
    const exposures = probabilitiesToBeBest([trend(50, 1.3), trend(30, 1.8), trend(20, 0.7)]);
    [0.86, 0, 0.13].forEach((p, i) => expect(Math.abs(exposures[i] - p)).toBeLessThan(0.01));
  });

  it('does not depend on the unit of exposure', () => {
    const relative = probabilitiesToBeBest([trend(15, 1), trend(30, 1)]);
    const absolute = probabilitiesToBeBest([trend(15, 10), trend(30, 10)]);
    expect(absolute[1]).toBeCloseTo(relative[1], 12);
  });

  it('agrees with a seeded simulation for three variants with unequal exposure', () => {
    const variants: Array<[number, number]> = [
      [50, 1.3],
      [30, 1.8],
      [20, 0.7],
    ];
    const exact = probabilitiesToBeBest(variants.map(([c, e]) => trend(c, e)));
    const simulated = simulateWinShares(
      variants.map(([c, e]) => gammaSampler(c + 1, 1 / e)),
      20_000,
      7,
    );
    exact.forEach((p, i) => expect(Math.abs(p - simulated[i])).toBeLessThan(0.015));
  });
});

describe('probability to be best at scale', () => {
  // With millions of observations the posteriors are nearly normal, so
  // Φ(Δμ / √(σ_A² + σ_B²)) must agree to about 1e-3.
  const normalApproximation = (a: { mean: number; sd: number }, b: { mean: number; sd: number }) =>
    normalCdf((b.mean - a.mean) / Math.hypot(a.sd, b.sd));

  it('handles a million persons per funnel variant', () => {
    const a = funnel(100_000, 900_000);
    const b = funnel(100_450, 899_550);
    const [pA, pB] = probabilitiesToBeBest([a, b]);
    expect(Math.abs(pB - normalApproximation(a, b))).toBeLessThan(1e-3);
    expect(pA + pB).toBeCloseTo(1, 12);
  });

  it('handles millions of events per trend variant', () => {
    const a = trend(5_000_000, 1_000_000);
    const b = trend(5_003_000, 1_000_000);
    const [, pB] = probabilitiesToBeBest([a, b]);
    expect(Math.abs(pB - normalApproximation(a, b))).toBeLessThan(1e-3);
  });
});
