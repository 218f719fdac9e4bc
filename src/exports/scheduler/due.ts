import type { BackfillRow, BatchExportRow, PauseSpan } from '../../../projections/exports';
import { backfillIntervals, firstEndAfter, firstEndAtOrAfter, INTERVAL_MS } from '../model/intervals';

export interface Interval {
  start: number;
  end: number;
}

const ms = (iso: string | null, fallback: number) => (iso === null ? fallback : Date.parse(iso));

/**
 * The scheduled intervals of one export that are due at `now` and not yet scheduled, in order:
 * a pure function of the export's history (read model) and the clock, so any process computes
 * the same list. An interval [end - step, end) is due when its end has passed, lies after the
 * export's creation, within [start_at, end_at], and not inside a pause — unless that pause was
 * ended with `{"backfill": true}`. Scanning resumes after the latest scheduled end; a run starts
 * where the previous one ended when the interval grew (no overlap after an interval change).
 */
export function dueIntervals(
  exp: BatchExportRow,
  pauses: readonly PauseSpan[],
  lastScheduledEnd: string | null,
  now: number,
  limit: number,
): Interval[] {
  const step = INTERVAL_MS[exp.interval];
  const startAt = ms(exp.start_at, -Infinity);
  const endAt = ms(exp.end_at, Infinity);
  const previous = lastScheduledEnd === null ? null : Date.parse(lastScheduledEnd);
  let end = firstEndAfter(previous ?? Date.parse(exp.created_at), step);
  if (end < startAt) end = firstEndAtOrAfter(startAt, step);
  const skipped = pauses
    .filter((p) => !p.backfill)
    .map((p) => ({ from: Date.parse(p.paused_at), to: ms(p.unpaused_at, Infinity) }));
  const out: Interval[] = [];
  let prev = previous;
  while (end <= now && end <= endAt && out.length < limit) {
    const pause = skipped.find((p) => p.from <= end && end < p.to);
    if (pause) {
      if (pause.to === Infinity) break;
      end = firstEndAtOrAfter(pause.to, step);
      continue;
    }
    out.push({ start: prev === null ? end - step : Math.max(end - step, prev), end });
    prev = end;
    end += step;
  }
  return out;
}

/** The next intervals of a backfill, in order, that have ended by `now`. */
export function dueBackfillIntervals(backfill: BackfillRow, now: number, limit: number): Interval[] {
  const step = INTERVAL_MS[backfill.interval];
  return backfillIntervals(Date.parse(backfill.start_at), Date.parse(backfill.end_at), step, backfill.scheduled_runs, limit)
    .filter(([, end]) => end <= now)
    .map(([start, end]) => ({ start, end }));
}
