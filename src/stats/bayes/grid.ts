import { GL_NODES, GL_WEIGHTS, ORDER } from '../numeric/gauss-legendre';
import type { Posterior } from '../posterior/posterior';

/**
 * Each density is followed out to 40 sd. All posteriors here are
 * log-concave, so tails decay at least exponentially and the mass beyond is
 * below 1e-17.
 */
const REACH_SD = 40;
/** Half an sd per panel keeps degree-9 interpolation of a density near 1e-13. */
const PANEL_SD = 0.5;

/**
 * Gauss–Legendre panels shared by a set of posteriors. Wherever a posterior
 * has mass, panels are at most half its sd wide, so even a far sharper
 * competitor is resolved.
 */
export interface Grid {
  readonly breaks: Float64Array;
  /** ORDER nodes per panel, panel after panel. */
  readonly nodes: Float64Array;
  /** Quadrature weights matching `nodes` (already scaled to the panel). */
  readonly weights: Float64Array;
}

interface Region {
  start: number;
  end: number;
  step: number;
}

function panelBreaks(regions: readonly Region[]): number[] {
  const hullStart = Math.min(...regions.map((r) => r.start));
  const hullEnd = Math.max(...regions.map((r) => r.end));
  const breaks = [hullStart];
  let x = hullStart;
  while (x < hullEnd) {
    let step = Number.POSITIVE_INFINITY;
    let nextRegion = hullEnd;
    for (const r of regions) {
      if (x >= r.start && x < r.end) step = Math.min(step, r.step);
      else if (r.start > x) nextRegion = Math.min(nextRegion, r.start);
    }
    const next = Math.min(x + step, nextRegion, hullEnd);
    if (!(next > x)) break;
    breaks.push(next);
    x = next;
  }
  return breaks;
}

export function buildGrid(posteriors: readonly Posterior[]): Grid {
  const regions = posteriors.map((p) => ({
    start: Math.max(p.lower, p.mean - REACH_SD * p.sd),
    end: Math.min(p.upper, p.mean + REACH_SD * p.sd),
    step: PANEL_SD * p.sd,
  }));
  const breaks = panelBreaks(regions);
  const panels = breaks.length - 1;
  const nodes = new Float64Array(panels * ORDER);
  const weights = new Float64Array(panels * ORDER);
  for (let i = 0; i < panels; i++) {
    const half = (breaks[i + 1] - breaks[i]) / 2;
    const mid = breaks[i] + half;
    for (let m = 0; m < ORDER; m++) {
      nodes[i * ORDER + m] = mid + half * GL_NODES[m];
      weights[i * ORDER + m] = half * GL_WEIGHTS[m];
    }
  }
  return { breaks: Float64Array.from(breaks), nodes, weights };
}
