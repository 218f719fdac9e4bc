/**
 * Sequential testing's promise: looking as often as one likes does not inflate false positives.
 * An A/A split (both arms drawn from the same distribution, seeded) is peeked at 200 times as
 * data accumulates; the always-valid test never calls it significant, while its interval narrows.
 */
import { describe, expect, it } from 'vitest';
import { effect, meanStatistic, moments, sequentialTTest, welchTTest } from '../../../../src/stats/v2';
import { mulberry32 as seeded } from '../support/simulate';

/** Box–Muller normal draws from the seeded uniform. */
function normal(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

interface Arm {
  n: number;
  sum: number;
  sumSquares: number;
}

function simulate(seed: number, peeks: number, perPeek: number, sequential: boolean) {
  const random = seeded(seed);
  const arms: [Arm, Arm] = [
    { n: 0, sum: 0, sumSquares: 0 },
    { n: 0, sum: 0, sumSquares: 0 },
  ];
  const looks: { significant: boolean; width: number }[] = [];
  for (let peek = 0; peek < peeks; peek++) {
    for (let i = 0; i < perPeek; i++) {
      for (const arm of arms) {
        const value = 10 + 3 * normal(random);
        arm.n += 1;
        arm.sum += value;
        arm.sumSquares += value * value;
      }
    }
    const t = moments(meanStatistic(arms[1].n, arms[1].sum, arms[1].sumSquares));
    const c = moments(meanStatistic(arms[0].n, arms[0].sum, arms[0].sumSquares));
    const observed = effect(t, c, 'RELATIVE');
    const r = sequential ? sequentialTTest(observed, t.n + c.n, 0.05) : welchTTest(observed, t, c, 0.05);
    looks.push({ significant: r.significant, width: r.confidenceInterval[1] - r.confidenceInterval[0] });
  }
  return looks;
}

describe('sequential testing on an A/A split', () => {
  it('never claims significance in 200 seeded peeks, and the interval narrows as data arrives', () => {
    const looks = simulate(20261129, 200, 50, true);
    expect(looks).toHaveLength(200);
    expect(looks.filter((l) => l.significant)).toHaveLength(0);
    const first = looks[0]?.width ?? 0;
    const last = looks[199]?.width ?? Number.POSITIVE_INFINITY;
    expect(last).toBeLessThan(first / 5);
  });

  it('holds across seeds, while peeking at the fixed-horizon Welch test does not', () => {
    let sequentialFalsePositives = 0;
    let welchFalsePositives = 0;
    for (let seed = 1; seed <= 40; seed++) {
      if (simulate(seed, 200, 25, true).some((l) => l.significant)) sequentialFalsePositives++;
      if (simulate(seed, 200, 25, false).some((l) => l.significant)) welchFalsePositives++;
    }
    // The always-valid guarantee is ≤ 5% of runs ever crossing; peeking at Welch crosses far more often.
    expect(sequentialFalsePositives).toBeLessThanOrEqual(2);
    expect(welchFalsePositives).toBeGreaterThan(sequentialFalsePositives);
  });
});
