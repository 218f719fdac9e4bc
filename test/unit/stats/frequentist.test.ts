import { describe, expect, it } from 'vitest';
import { binomialTestTwoSided, clopperPearson } from '../../../src/stats/frequentist/binomial';
import { comparePoissonRates, exactPoissonRateInterval } from '../../../src/stats/frequentist/poisson-rates';
import { twoProportionZTest, wilsonInterval } from '../../../src/stats/frequentist/two-proportion';

describe('two-proportion z-test', () => {
  it('reproduces a published worked example', () => {
    // 300 NYC voters, 56% in favour, vs 200 DC voters, 48% (homeworksource.com/p/1078444):
    // pooled p̂ = 0.528, z = 1.755, two-tailed p = 0.0792.
    const result = twoProportionZTest({ successes: 168, total: 300 }, { successes: 96, total: 200 }, 0.95);
    expect(result.z).toBeCloseTo(1.7555, 4);
    expect(result.p_value).toBeCloseTo(0.0792, 4);
    expect(result.difference).toBeCloseTo(0.08, 12);
    expect(result.significant).toBe(false);
    // Wald interval by hand: 0.08 ± 1.96·√(0.56·0.44/300 + 0.48·0.52/200) = 0.08 ± 0.089159
    const [low, high] = result.confidence_interval ?? [Number.NaN, Number.NaN];
    expect(low).toBeCloseTo(0.08 - 0.089159, 5);
    expect(high).toBeCloseTo(0.08 + 0.089159, 5);
  });

  it('is symmetric in direction', () => {
    const forward = twoProportionZTest({ successes: 30, total: 100 }, { successes: 20, total: 100 }, 0.95);
    const backward = twoProportionZTest({ successes: 20, total: 100 }, { successes: 30, total: 100 }, 0.95);
    expect(forward.z).toBeCloseTo(-(backward.z ?? 0), 14);
    expect(forward.p_value).toBeCloseTo(backward.p_value ?? 0, 14);
  });

  it('gives p = 1 when both rates are 0, and nulls without data', () => {
    const none = twoProportionZTest({ successes: 0, total: 50 }, { successes: 0, total: 80 }, 0.95);
    expect(none).toMatchObject({ z: 0, p_value: 1, significant: false });
    const empty = twoProportionZTest({ successes: 0, total: 0 }, { successes: 5, total: 80 }, 0.95);
    expect(empty).toEqual({ difference: null, confidence_interval: null, z: null, p_value: null, significant: false });
  });
});

describe('Wilson score interval', () => {
  it("matches Newcombe (1998), Statistics in Medicine 17:857, Table I (method 3)", () => {
    const cases: Array<[number, number, number, number]> = [
      [81, 263, 0.2553, 0.3662],
      [15, 148, 0.0624, 0.1605],
      [0, 20, 0, 0.1611],
      [1, 29, 0.0061, 0.1718],
    ];
    for (const [x, n, low, high] of cases) {
      const [l, h] = wilsonInterval({ successes: x, total: n }, 0.95) ?? [Number.NaN, Number.NaN];
      expect(l).toBeCloseTo(low, 4);
      expect(h).toBeCloseTo(high, 4);
    }
    expect(wilsonInterval({ successes: 0, total: 0 }, 0.95)).toBeNull();
  });
});

describe('exact binomial test', () => {
  it("reproduces R's binom.test example (Mendel's peas, 682 of 925 against p = 3/4)", () => {
    // R documentation example output: p-value = 0.3825, 95% CI 0.7076683 0.7654066
    expect(binomialTestTwoSided(682, 925, 0.75)).toBeCloseTo(0.3825, 4);
    const [low, high] = clopperPearson(682, 925, 0.95);
    expect(low).toBeCloseTo(0.7076683, 7);
    expect(high).toBeCloseTo(0.7654066, 7);
  });

  it('equals a brute-force sum over outcomes no more likely than the observed one', () => {
    // n = 20, p = 0.3: exact pmf with BigInt arithmetic (3^k 7^(n−k) / 10^n).
    const n = 20;
    const weights: bigint[] = [];
    let choose = 1n;
    for (let k = 0; k <= n; k++) {
      weights.push(choose * 3n ** BigInt(k) * 7n ** BigInt(n - k));
      choose = (choose * BigInt(n - k)) / BigInt(k + 1);
    }
    const scale = 10n ** BigInt(n);
    for (const x of [0, 2, 6, 9, 13, 20]) {
      const sum = weights.filter((w) => w <= weights[x]).reduce((a, b) => a + b, 0n);
      expect(binomialTestTwoSided(x, n, 0.3)).toBeCloseTo(Number(sum) / Number(scale), 12);
    }
  });

  it('has closed-form Clopper–Pearson bounds at 0 and n', () => {
    expect(clopperPearson(0, 30, 0.95)).toEqual([0, expect.closeTo(1 - 0.025 ** (1 / 30), 12)]);
    expect(clopperPearson(30, 30, 0.95)).toEqual([expect.closeTo(0.025 ** (1 / 30), 12), 1]);
  });
});

describe('Poisson rates', () => {
  it("reproduces R's poisson.test two-sample example (eba1977: 11/800 vs 21/3011)", () => {
    // R output: p-value = 0.07967, CI 0.8584264 4.2772659, rate ratio 1.971488
    const result = comparePoissonRates({ count: 11, exposure: 800 }, { count: 21, exposure: 3011 }, 0.95);
    expect(result.p_value).toBeCloseTo(0.07967, 5);
    expect(result.rate_ratio).toBeCloseTo(1.971488, 6);
    expect(result.confidence_interval?.[0]).toBeCloseTo(0.8584264, 6);
    expect(result.confidence_interval?.[1]).toBeCloseTo(4.2772659, 6);
    expect(result.significant).toBe(false);
  });

  it('matches exact (Garwood) Poisson limits from standard tables', () => {
    expect(exactPoissonRateInterval({ count: 0, exposure: 1 }, 0.95)).toEqual([0, expect.closeTo(3.689, 3)]);
    const [low1, high1] = exactPoissonRateInterval({ count: 1, exposure: 1 }, 0.95) ?? [];
    expect(low1).toBeCloseTo(0.0253, 4);
    expect(high1).toBeCloseTo(5.572, 3);
    const [low10, high10] = exactPoissonRateInterval({ count: 10, exposure: 2 }, 0.95) ?? [];
    expect(low10).toBeCloseTo(4.795 / 2, 3);
    expect(high10).toBeCloseTo(18.39 / 2, 3);
    expect(exactPoissonRateInterval({ count: 3, exposure: 0 }, 0.95)).toBeNull();
  });

  it('reports an unbounded ratio when control has no events, and nulls without data', () => {
    const noControlEvents = comparePoissonRates({ count: 12, exposure: 100 }, { count: 0, exposure: 100 }, 0.95);
    expect(noControlEvents.rate_ratio).toBeNull();
    expect(noControlEvents.confidence_interval?.[1]).toBeNull();
    expect(noControlEvents.p_value).toBeCloseTo(2 * 0.5 ** 12, 14);
    const nothing = comparePoissonRates({ count: 0, exposure: 100 }, { count: 0, exposure: 100 }, 0.95);
    expect(nothing).toEqual({ rate_ratio: null, confidence_interval: null, p_value: null, significant: false });
  });
});
