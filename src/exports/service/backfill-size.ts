import type { BatchExportRow } from '../../../projections/exports';
import { validationError } from '../../errors';
import { backfillIntervalCount, firstEndAtOrAfter, INTERVAL_MS, lastEndAtOrBefore } from '../model/intervals';
import type { BackfillRange } from './backfill-input';

const refuse = (what: string, count: number, max: number) =>
  validationError(
    `${what} would create ${count.toLocaleString('en-US')} runs (one per interval), more than the ${max.toLocaleString('en-US')} ` +
      'a backfill may create (EXPORT_BACKFILL_MAX_RUNS). Backfill a shorter range, or several in turn.',
  );

/** A backfill creates one run per whole interval of its range: at most `max` of them. */
export function checkBackfillSize(range: BackfillRange, step: number, max: number): void {
  const count = backfillIntervalCount(Date.parse(range.startAt), Date.parse(range.endAt), step);
  if (count > max) throw refuse('This backfill', count, max);
}

/**
 * Unpausing with `backfill` schedules every interval that ended while paused (within start_at and
 * end_at): the same cap applies. Without backfill those intervals are skipped, so nothing is capped.
 */
export function checkUnpauseBackfillSize(row: BatchExportRow, backfill: boolean, now: number, max: number): void {
  if (!backfill || row.last_paused_at === null) return;
  const step = INTERVAL_MS[row.interval];
  const from = Math.max(Date.parse(row.last_paused_at), row.start_at ? Date.parse(row.start_at) : -Infinity);
  const to = Math.min(now, row.end_at ? Date.parse(row.end_at) : Infinity);
  const count = to < from ? 0 : Math.max(0, (lastEndAtOrBefore(to, step) - firstEndAtOrAfter(from, step)) / step + 1);
  if (count > max) throw refuse('Unpausing with backfill', count, max);
}
