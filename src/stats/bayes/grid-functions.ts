import { GL_INTEGRATION, GL_WEIGHTS, ORDER } from '../numeric/gauss-legendre';
import type { Posterior } from '../posterior/posterior';
import type { Grid } from './grid';

/**
 * The density at every node, rescaled so the grid holds exactly the mass the
 * CDF says it should. For millions of events ln B(a, b) and ln Γ(a) lose
 * ~1e-9 to cancellation, and without this the error would show up in the
 * CDF's endpoint and in probabilities that ought to sum to 1.
 */
export function densityOnGrid(grid: Grid, p: Posterior): Float64Array {
  const density = grid.nodes.map((x) => p.pdf(x));
  let mass = 0;
  for (let i = 0; i < density.length; i++) mass += grid.weights[i] * density[i];
  const expected = p.sf(grid.breaks[0]) - p.sf(grid.breaks[grid.breaks.length - 1]);
  if (!(mass > 0)) return density;
  const scale = expected / mass;
  return density.map((f) => f * scale);
}

/** ∫ of the panel's interpolant from its left edge to node m, and over the whole panel. */
function panelIntegrals(values: Float64Array, panel: number, half: number): { partial: number[]; total: number } {
  const base = panel * ORDER;
  const partial: number[] = [];
  for (let m = 0; m < ORDER; m++) {
    let sum = 0;
    for (let j = 0; j < ORDER; j++) sum += GL_INTEGRATION[m][j] * values[base + j];
    partial.push(half * sum);
  }
  let total = 0;
  for (let j = 0; j < ORDER; j++) total += GL_WEIGHTS[j] * values[base + j];
  return { partial, total: half * total };
}

/**
 * The CDF at every node. One exact evaluation at the grid's left edge, then
 * the density is integrated panel by panel, so the cost per node does not
 * grow with the counts (the incomplete beta/gamma expansions need ~√shape
 * terms, which is far too slow for millions of events).
 */
export function cdfOnGrid(grid: Grid, p: Posterior, density: Float64Array): Float64Array {
  const out = new Float64Array(grid.nodes.length);
  let left = p.cdf(grid.breaks[0]);
  for (let i = 0; i + 1 < grid.breaks.length; i++) {
    const { partial, total } = panelIntegrals(density, i, (grid.breaks[i + 1] - grid.breaks[i]) / 2);
    for (let m = 0; m < ORDER; m++) out[i * ORDER + m] = Math.min(1, Math.max(0, left + partial[m]));
    left += total;
  }
  return out;
}

/**
 * P(X > x) and E[X·1{X > x}] at every node, accumulated from the grid's
 * right edge so both stay accurate where they are small.
 */
export function upperTailsOnGrid(
  grid: Grid,
  p: Posterior,
  density: Float64Array,
): { sf: Float64Array; partialMean: Float64Array } {
  const size = grid.nodes.length;
  const sf = new Float64Array(size);
  const partialMean = new Float64Array(size);
  const moment = density.map((f, i) => f * grid.nodes[i]);
  const end = grid.breaks[grid.breaks.length - 1];
  let rightSf = p.sf(end);
  let rightMean = p.upperPartialMean(end);
  for (let i = grid.breaks.length - 2; i >= 0; i--) {
    const half = (grid.breaks[i + 1] - grid.breaks[i]) / 2;
    const mass = panelIntegrals(density, i, half);
    const first = panelIntegrals(moment, i, half);
    for (let m = 0; m < ORDER; m++) {
      sf[i * ORDER + m] = Math.max(0, rightSf + mass.total - mass.partial[m]);
      partialMean[i * ORDER + m] = Math.max(0, rightMean + first.total - first.partial[m]);
    }
    rightSf += mass.total;
    rightMean += first.total;
  }
  return { sf, partialMean };
}
