import { describe, expect, it } from 'vitest';
import { incompleteBeta } from '../../../src/stats/special/incomplete-beta';
import { incompleteGamma } from '../../../src/stats/special/incomplete-gamma';
import { logGamma } from '../../../src/stats/special/log-gamma';
import { normalCdf, normalQuantile, normalSf } from '../../../src/stats/special/normal';
import { GL_INTEGRATION, GL_NODES, GL_WEIGHTS } from '../../../src/stats/numeric/gauss-legendre';

describe('logGamma', () => {
  it('matches exact values', () => {
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 13);
    expect(logGamma(1)).toBeCloseTo(0, 13);
    expect(logGamma(2)).toBeCloseTo(0, 13);
    expect(logGamma(10)).toBeCloseTo(Math.log(362880), 12);
    // ln(99!) summed term by term.
    let lnFactorial = 0;
    for (let k = 2; k <= 99; k++) lnFactorial += Math.log(k);
    expect(logGamma(100)).toBeCloseTo(lnFactorial, 9);
  });
});

describe('incomplete gamma', () => {
  it('matches closed forms for integer shapes', () => {
    for (const x of [0.01, 0.5, 1, 3, 10, 40]) {
      expect(incompleteGamma(1, x).upper).toBeCloseTo(Math.exp(-x), 14);
      // Q(2, x) = e^{-x}(1 + x)
      expect(incompleteGamma(2, x).upper).toBeCloseTo(Math.exp(-x) * (1 + x), 14);
      expect(incompleteGamma(3, x).lower + incompleteGamma(3, x).upper).toBeCloseTo(1, 15);
    }
  });

  it('keeps tiny upper tails relative-accurate', () => {
    const x = 60;
    expect(incompleteGamma(1, x).upper / Math.exp(-x)).toBeCloseTo(1, 12);
  });

  it('handles the support edges', () => {
    expect(incompleteGamma(3, 0)).toEqual({ lower: 0, upper: 1 });
    expect(incompleteGamma(3, Number.POSITIVE_INFINITY)).toEqual({ lower: 1, upper: 0 });
  });
});

describe('incomplete beta', () => {
  it('matches closed forms', () => {
    for (const x of [0.001, 0.1, 0.37, 0.5, 0.9, 0.999]) {
      expect(incompleteBeta(x, 1, 7).lower).toBeCloseTo(1 - (1 - x) ** 7, 14);
      expect(incompleteBeta(x, 5, 1).lower).toBeCloseTo(x ** 5, 14);
      expect(incompleteBeta(x, 2, 2).lower).toBeCloseTo(3 * x * x - 2 * x ** 3, 14);
    }
  });

  it('is symmetric: I_x(a, b) = 1 − I_{1−x}(b, a)', () => {
    expect(incompleteBeta(0.3, 12, 40).lower).toBeCloseTo(incompleteBeta(0.7, 40, 12).upper, 14);
  });

  it('stays accurate for large parameters where jStat stops after 100 steps', () => {
    // For a = b the distribution is symmetric about 1/2.
    expect(incompleteBeta(0.5, 1e6, 1e6).lower).toBeCloseTo(0.5, 9);
  });
});

describe('normal distribution', () => {
  it('matches standard normal table values', () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(1.96)).toBeCloseTo(0.9750021048517795, 14);
    expect(normalCdf(-1)).toBeCloseTo(0.15865525393145707, 14);
    expect(normalSf(10)).toBeCloseTo(7.61985302416047e-24, 36);
  });

  it('inverts the CDF', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 12);
    expect(normalQuantile(0.995)).toBeCloseTo(2.5758293035489004, 12);
    expect(normalQuantile(0.025)).toBeCloseTo(-1.959963984540054, 12);
    expect(normalQuantile(0.5)).toBe(0);
  });
});

describe('Gauss–Legendre rule', () => {
  it('has weights summing to 2 and integrates x^18 exactly', () => {
    expect(GL_WEIGHTS.reduce((a, b) => a + b, 0)).toBeCloseTo(2, 14);
    const integral = GL_NODES.reduce((sum, x, i) => sum + GL_WEIGHTS[i] * x ** 18, 0);
    expect(integral).toBeCloseTo(2 / 19, 14);
  });

  it('integration matrix integrates polynomials up to each node', () => {
    // ∫_{-1}^{x} 3t² dt = x³ + 1
    GL_NODES.forEach((x, m) => {
      const value = GL_INTEGRATION[m].reduce((sum, s, j) => sum + s * 3 * GL_NODES[j] ** 2, 0);
      expect(value).toBeCloseTo(x ** 3 + 1, 13);
    });
  });
});
