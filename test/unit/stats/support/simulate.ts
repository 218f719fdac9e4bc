import jStat from 'jstat';

/** mulberry32: a tiny, well-known seeded PRNG returning uniforms in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `body` with jStat drawing from a seeded PRNG, restoring its generator afterwards. */
export function withSeededJStat<T>(seed: number, body: () => T): T {
  const previous = jStat._random_fn;
  jStat.setRandom(mulberry32(seed));
  try {
    return body();
  } finally {
    jStat.setRandom(previous);
  }
}

export type Sampler = () => number;

export const betaSampler = (alpha: number, beta: number): Sampler => () => jStat.beta.sample(alpha, beta);
export const gammaSampler = (shape: number, scale: number): Sampler => () => jStat.gamma.sample(shape, scale);

/** Monte Carlo share of draws in which each sampler gives the largest value. */
export function simulateWinShares(samplers: readonly Sampler[], draws: number, seed: number): number[] {
  return withSeededJStat(seed, () => {
    const wins = samplers.map(() => 0);
    for (let d = 0; d < draws; d++) {
      let best = 0;
      let bestValue = Number.NEGATIVE_INFINITY;
      samplers.forEach((sample, i) => {
        const value = sample();
        if (value > bestValue) {
          bestValue = value;
          best = i;
        }
      });
      wins[best] += 1;
    }
    return wins.map((w) => w / draws);
  });
}

/** Monte Carlo E[max(0, other − target)]. */
export function simulateExpectedLoss(target: Sampler, other: Sampler, draws: number, seed: number): number {
  return withSeededJStat(seed, () => {
    let sum = 0;
    for (let d = 0; d < draws; d++) sum += Math.max(0, other() - target());
    return sum / draws;
  });
}
