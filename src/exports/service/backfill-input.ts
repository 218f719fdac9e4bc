import { validationError } from '../../errors';
import { pythonIso } from './datetime';

export interface BackfillRange {
  startAt: string;
  endAt: string;
}

/** The backfill body as its schema read it: instants in ms; no end means "until now" (HTTP exports only). */
export interface BackfillBounds {
  startMs: number;
  endMs: number | null;
}

/**
 * What of a backfill depends on the export, checked as PostHog checks it (its messages): only HTTP
 * exports may omit the end, start before end, the end at most one interval into the future.
 * Intervals ending in the future are scheduled once they have passed.
 */
export function checkBackfill(bounds: BackfillBounds, ctx: { now: number; step: number; destinationType: string }): BackfillRange {
  const start = bounds.startMs;
  if (bounds.endMs === null && ctx.destinationType !== 'HTTP') throw validationError('Backfilling a BatchExport with no end date is not allowed', 'end_at');
  const end = bounds.endMs ?? ctx.now;
  if (start >= end) throw validationError("The initial backfill datetime 'start_at' happens after 'end_at'", 'start_at');
  if (end > ctx.now + ctx.step) {
    throw validationError(
      `The provided 'end_at' (${pythonIso(end)}) is too far into the future. Cannot backfill beyond 1 batch period into the future.`,
      'end_at',
    );
  }
  return { startAt: new Date(start).toISOString(), endAt: new Date(end).toISOString() };
}
