import type { FunnelRow } from '../../../projections/experiments-results-queries';

export interface FunnelCount {
  success: number;
  failure: number;
}

/**
 * Furthest step one attempt reaches when it starts at `order[start]`: steps must follow in order,
 * each at or after the previous, all within the window from the first. Taking the earliest match
 * for each step is optimal for an ordered funnel (it leaves the most room for the next ones).
 * `exhausted` tells whether the attempt ran out of rows rather than out of window.
 */
function attempt(rows: readonly FunnelRow[], order: readonly number[], ms: readonly number[], start: number, need: readonly number[], windowMs: number) {
  let reached = 1;
  for (let j = start + 1; j < order.length && reached < need.length; j++) {
    if (ms[j] - ms[start] > windowMs) return { reached, exhausted: false };
    if (rows[order[j]].s === need[reached]) reached++;
  }
  return { reached, exhausted: true };
}

/**
 * Per variant, persons who completed the ordered funnel (success) or entered it and did not
 * (failure). A person belongs to the variant on their first first-step event that carries one of
 * the experiment's variants (PostHog's first-touch breakdown); persons without one are not counted.
 * Attempts start only at first-step events that carry that variant.
 *
 * Written for ~10^5 rows per call: rows are chained per person through an index array instead of
 * per-person arrays, and times are parsed only for persons with more than one row.
 */
export function funnelCounts(rows: readonly FunnelRow[], steps: readonly string[], windowMs: number, variants: readonly string[]): Map<string, FunnelCount> {
  const counts = new Map(variants.map((v) => [v, { success: 0, failure: 0 }]));
  // Rows name their event by the index of its first step, so step k matches rows with s = need[k].
  const need = steps.map((name) => steps.indexOf(name));
  const next = new Int32Array(rows.length);
  const head = new Map<string, number>();
  // Backwards, so each person's chain lists their rows in input order.
  for (let i = rows.length - 1; i >= 0; i--) {
    next[i] = head.get(rows[i].p) ?? -1;
    head.set(rows[i].p, i);
  }
  // Time order; on a tie the earlier step first, so simultaneous steps still count as in order.
  const byTime = (a: number, b: number) => (rows[a].t < rows[b].t ? -1 : rows[a].t > rows[b].t ? 1 : rows[a].s - rows[b].s);
  const order: number[] = [];
  const ms: number[] = [];
  for (const first of head.values()) {
    order.length = 0;
    for (let i = first; i !== -1; i = next[i]) order.push(i);
    if (order.length > 1) order.sort(byTime);
    let variant: string | null = null;
    for (const i of order) {
      const v = rows[i].v;
      if (rows[i].s === 0 && typeof v === 'string' && counts.has(v)) {
        variant = v;
        break;
      }
    }
    if (variant === null) continue;
    let best = 1;
    if (order.length > 1) {
      ms.length = 0;
      for (const i of order) ms.push(Date.parse(rows[i].t));
      for (let s = 0; s < order.length && best < steps.length; s++) {
        // Only first-step events of this experiment's variant start an attempt: another flag's
        // `$feature_flag_called`, or a page view sent before the flag was served, does not.
        const row = rows[order[s]];
        if (row.s !== 0 || row.v !== variant) continue;
        const { reached, exhausted } = attempt(rows, order, ms, s, need, windowMs);
        best = Math.max(best, reached);
        // A later start sees a subset of the same rows: without the window cutting it short, it
        // cannot get further.
        if (exhausted) break;
      }
    }
    const count = counts.get(variant)!;
    if (best === steps.length) count.success++;
    else count.failure++;
  }
  return counts;
}
