import type { Posterior } from '../posterior/posterior';
import { buildGrid } from './grid';
import { cdfOnGrid, densityOnGrid } from './grid-functions';

/**
 * P(variant j beats every other) = ∫ f_j(x) ∏_{k≠j} F_k(x) dx for each j, by
 * numerical integration on a shared grid rather than PostHog's 100k-draw
 * simulation: the same quantity, accurate to ~1e-12 and identical on every
 * call.
 */
export function probabilitiesOfBeatingAll(posteriors: readonly Posterior[]): number[] {
  if (posteriors.length === 1) return [1];
  const grid = buildGrid(posteriors);
  const densities = posteriors.map((p) => densityOnGrid(grid, p));
  const cdfs = posteriors.map((p, k) => cdfOnGrid(grid, p, densities[k]));
  return posteriors.map((_, j) => {
    let sum = 0;
    for (let i = 0; i < grid.nodes.length; i++) {
      const density = densities[j][i];
      if (density === 0) continue;
      let product = grid.weights[i] * density;
      for (let k = 0; k < posteriors.length && product !== 0; k++) if (k !== j) product *= cdfs[k][i];
      sum += product;
    }
    return Math.min(1, Math.max(0, sum));
  });
}

/**
 * Probability that each posterior is the best. As in PostHog, the first entry
 * (control) is 1 minus the sum of the others, so the list sums to 1.
 */
export function probabilitiesToBeBest(posteriors: readonly Posterior[]): number[] {
  const tests = probabilitiesOfBeatingAll(posteriors).slice(1);
  const control = Math.max(0, 1 - tests.reduce((sum, p) => sum + p, 0));
  return [control, ...tests];
}
