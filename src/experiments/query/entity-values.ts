import type { MetricEventRow } from '../../../projections/experiment-metric-queries';
import type { FunnelMetric, MetricSource } from '../metrics/schema';
import { sourceMatcher, type SourceMatch } from './source-match';

/** An exposed entity: its variant, first exposure (ms since the epoch) and that exposure's breakdown values. */
export interface Exposed {
  variant: string;
  first: number;
  breakdown?: readonly string[];
}

/** The window one entity's events count in: [from, to). */
export interface Window {
  from: number;
  to: number;
}

/** Per entity, its events of one metric in time order (the one pass over the metric's events). */
export function eventsByEntity(rows: readonly MetricEventRow[]): Map<string, MetricEventRow[]> {
  const byEntity = new Map<string, MetricEventRow[]>();
  for (const row of rows) {
    const list = byEntity.get(row.p);
    if (list) list.push(row);
    else byEntity.set(row.p, [row]);
  }
  for (const list of byEntity.values()) list.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
  return byEntity;
}

const numeric = (x: string | number | null): number | null => {
  if (x === null || x === '') return null;
  const n = typeof x === 'number' ? x : Number(x);
  return Number.isFinite(n) ? n : null;
};

/** The match by event name alone (a source without property filters). */
const byName = (source: MetricSource): SourceMatch => sourceMatcher({ ...source, properties: [] }, new Date(0));

/**
 * One entity's value of a mean source over a window: the count of its events (`total`), the sum,
 * average, minimum or maximum of the property, or 1 when it did the event at all (`dau`,
 * `unique_session`: a distinct count per entity). No event gives 0. `matches` says which events
 * are the source's (by default its event name; source-match.ts adds its property filters).
 */
export function sourceValue(source: MetricSource, events: readonly MetricEventRow[] | undefined, window: Window, matches: SourceMatch = byName(source)): number {
  const math = source.math ?? 'total';
  let count = 0;
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let valued = 0;
  for (const row of events ?? []) {
    const t = Date.parse(row.t);
    if (t < window.from || t >= window.to || !matches(row)) continue;
    count += 1;
    const x = numeric(row.x);
    if (x !== null) {
      sum += x;
      valued += 1;
      min = Math.min(min, x);
      max = Math.max(max, x);
    }
  }
  switch (math) {
    case 'sum':
      return sum;
    case 'avg':
      return valued ? sum / valued : 0;
    case 'min':
      return valued ? min : 0;
    case 'max':
      return valued ? max : 0;
    case 'dau':
    case 'unique_session':
    case 'unique_group':
      return count > 0 ? 1 : 0;
    default:
      return count;
  }
}

/**
 * How many of the funnel's steps an entity completed in the window. Ordered and strict: each
 * step after the previous one (strict is read as ordered here); unordered: steps in any order.
 * `steps`: each step's match (by default its event name).
 */
export function funnelStepsReached(metric: FunnelMetric, events: readonly MetricEventRow[] | undefined, window: Window, steps: readonly SourceMatch[] = metric.series.map(byName)): number {
  const inWindow = (events ?? []).filter((row) => {
    const t = Date.parse(row.t);
    return t >= window.from && t < window.to;
  });
  if (metric.funnel_order_type === 'unordered') {
    let reached = 0;
    for (const step of steps) {
      if (inWindow.some(step)) reached += 1;
      else break;
    }
    return reached;
  }
  let step = 0;
  for (const row of inWindow) {
    if (step < steps.length && steps[step](row)) step += 1;
  }
  return step;
}
