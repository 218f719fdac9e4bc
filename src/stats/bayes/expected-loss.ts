import type { Posterior } from '../posterior/posterior';
import { buildGrid } from './grid';
import { densityOnGrid, upperTailsOnGrid } from './grid-functions';

/**
 * E[max(0, X_other − X_target)]: how much rate one expects to give up by
 * shipping `target` when `other` might be better (the VWO SmartStats loss
 * that PostHog estimates by simulation). The inner expectation has the closed
 * form E[(X_o − x)⁺] = E[X_o·1{X_o > x}] − x·P(X_o > x), leaving a single
 * integral over the target's posterior.
 */
export function expectedLoss(target: Posterior, other: Posterior): number {
  const grid = buildGrid([target, other]);
  const density = densityOnGrid(grid, target);
  const tails = upperTailsOnGrid(grid, other, densityOnGrid(grid, other));
  let sum = 0;
  for (let i = 0; i < grid.nodes.length; i++) {
    const gap = tails.partialMean[i] - grid.nodes[i] * tails.sf[i];
    if (gap > 0) sum += grid.weights[i] * density[i] * gap;
  }
  return sum;
}
