import type { MetricEventRow } from '../../../projections/experiment-metric-queries';
import type { RetentionMetric } from '../metrics/schema';
import type { SourceMatch } from './source-match';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A unit's length where a length is needed (PostHog's conversion_window_to_seconds: a month is 30 days). */
const UNIT_MS = { second: 1000, minute: 60_000, hour: HOUR_MS, day: DAY_MS, week: 7 * DAY_MS, month: 30 * DAY_MS } as const;

export type RetentionUnit = keyof typeof UNIT_MS;

/** The retention metric's settings, read once per query. */
export interface RetentionWindow {
  start: number;
  end: number;
  unit: RetentionUnit;
  handling: 'first_seen' | 'last_seen';
  /** The metric's conversion window (ms): how long after the exposure a start event counts; null: until the end. */
  conversionMs: number | null;
}

export function retentionWindowOf(metric: RetentionMetric, conversionMs: number | null): RetentionWindow {
  return {
    start: metric.retention_window_start,
    end: metric.retention_window_end,
    unit: metric.retention_window_unit,
    handling: metric.start_handling,
    conversionMs,
  };
}

/** How far past the experiment's end a retention metric reads events: a late start's whole window. */
export function retentionReadBeyondEndMs(w: RetentionWindow): number {
  return (w.conversionMs ?? 0) + w.end * UNIT_MS[w.unit];
}

/**
 * One exposed entity's retention, as PostHog's retention metric computes it: null when it did not
 * do the start event after its exposure (within the conversion window, when set), so it is not
 * counted at all; else 1 when a completion event (another event than that start) falls in the
 * retention window after the start, 0 when none does. The start is the first or the last start
 * event (`start_handling`). Day and hour windows compare the calendar day or hour (UTC), so
 * [0, 0] days means "later on the same day" and [7, 7] "any time on day 7"; other units compare
 * the times themselves. `range`: the experiment's [start, end] (ms); events are in time order.
 */
export function retentionOf(
  events: readonly MetricEventRow[] | undefined,
  exposedAt: number,
  range: { from: number; to: number },
  w: RetentionWindow,
  matches: { start: SourceMatch; completion: SourceMatch },
): 0 | 1 | null {
  let start: MetricEventRow | null = null;
  let startAt = 0;
  const startsUntil = range.to + (w.conversionMs ?? 0);
  for (const row of events ?? []) {
    const t = Date.parse(row.t);
    if (t < range.from || t >= startsUntil || t < exposedAt || (w.conversionMs !== null && t > exposedAt + w.conversionMs)) continue;
    if (!matches.start(row)) continue;
    if (start === null || w.handling === 'last_seen') {
      start = row;
      startAt = t;
    }
    if (w.handling === 'first_seen') break;
  }
  if (start === null) return null;
  const truncate = TRUNCATE[w.unit];
  const from = add(truncate(startAt), w.start, w.unit);
  const to = add(truncate(startAt), w.end, w.unit);
  // The coarse bound PostHog joins completions on: the window's end, plus a whole day or hour
  // where the comparison is by calendar day or hour.
  const latest = startAt + w.end * UNIT_MS[w.unit] + (w.unit === 'day' ? DAY_MS : w.unit === 'hour' ? HOUR_MS : 0);
  const completionsUntil = range.to + retentionReadBeyondEndMs(w);
  for (const row of events ?? []) {
    if (row === start) continue;
    const t = Date.parse(row.t);
    if (t < startAt || t > latest || t < range.from || t >= completionsUntil || !matches.completion(row)) continue;
    const at = truncate(t);
    if (at >= from && at <= to) return 1;
  }
  return 0;
}

const TRUNCATE: Record<RetentionUnit, (ms: number) => number> = {
  second: (ms) => ms,
  minute: (ms) => ms,
  hour: (ms) => Math.floor(ms / HOUR_MS) * HOUR_MS,
  day: (ms) => Math.floor(ms / DAY_MS) * DAY_MS,
  week: (ms) => ms,
  month: (ms) => ms,
};

/** `n` units after `ms`: calendar months for months (ClickHouse's interval arithmetic), fixed lengths otherwise. */
function add(ms: number, n: number, unit: RetentionUnit): number {
  if (unit !== 'month') return ms + n * UNIT_MS[unit];
  const d = new Date(ms);
  const month = d.getUTCMonth() + n;
  const target = new Date(Date.UTC(d.getUTCFullYear(), month, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
  // ClickHouse clamps to the target month's last day (Jan 31 + 1 month = Feb 28/29).
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.getTime();
}
