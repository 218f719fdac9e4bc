export { INTERVAL_MS } from '../../../streams';

/**
 * Interval ends are whole multiples of the interval since the Unix epoch (UTC), which is where
 * Temporal's interval schedules (PostHog's scheduler) put them: hours on the hour, days at
 * midnight UTC, and weeks at Thursday 00:00 UTC (1970-01-01 was a Thursday).
 */
export function firstEndAfter(t: number, step: number): number {
  return Math.floor(t / step) * step + step;
}

/** The first interval end at or after `t`. */
export function firstEndAtOrAfter(t: number, step: number): number {
  return Math.ceil(t / step) * step;
}

/** The last interval end at or before `t`. */
export function lastEndAtOrBefore(t: number, step: number): number {
  return Math.floor(t / step) * step;
}

/**
 * Backfill intervals, as PostHog steps them: from `start`, one interval at a time, keeping only
 * whole intervals that end by `end`. Returned in order, `limit` at most, from interval `skip`.
 */
export function backfillIntervals(start: number, end: number, step: number, skip = 0, limit = Infinity): [number, number][] {
  const out: [number, number][] = [];
  for (let k = skip; out.length < limit; k++) {
    const s = start + k * step;
    if (s + step > end) break;
    out.push([s, s + step]);
  }
  return out;
}

export const backfillIntervalCount = (start: number, end: number, step: number): number =>
  Math.max(0, Math.floor((end - start) / step));

export const iso = (ms: number): string => new Date(ms).toISOString();
