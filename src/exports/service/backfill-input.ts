import { validationError } from '../../errors';
import { parseIsoDateTime, pythonIso } from './datetime';

export interface BackfillRange {
  startAt: string;
  endAt: string;
}

function bound(value: unknown, attr: string): number {
  const parsed = parseIsoDateTime(value);
  if (!parsed) throw validationError(`Input ${String(value)} is not a valid ISO formatted datetime.`, attr);
  if (!parsed.aware) throw validationError(`Input ${String(value)} is naive.`, attr);
  return parsed.ms;
}

/**
 * The backfill body `{start_at, end_at}`, checked as PostHog checks it (its messages): both must
 * carry a timezone, start before end, the end at most one interval into the future; only HTTP
 * exports may omit the end, which then means "now". Intervals ending in the future are scheduled
 * once they have passed.
 */
export function checkBackfill(body: Record<string, unknown>, ctx: { now: number; step: number; destinationType: string }): BackfillRange {
  if (body.start_at === undefined || body.start_at === null || body.start_at === '')
    throw validationError('This field is required.', 'start_at');
  const start = bound(body.start_at, 'start_at');
  let end: number;
  if (body.end_at === undefined || body.end_at === null || body.end_at === '') {
    if (ctx.destinationType !== 'HTTP') throw validationError('Backfilling a BatchExport with no end date is not allowed', 'end_at');
    end = ctx.now;
  } else {
    end = bound(body.end_at, 'end_at');
  }
  if (start >= end) throw validationError("The initial backfill datetime 'start_at' happens after 'end_at'", 'start_at');
  if (end > ctx.now + ctx.step) {
    throw validationError(
      `The provided 'end_at' (${pythonIso(end)}) is too far into the future. Cannot backfill beyond 1 batch period into the future.`,
      'end_at',
    );
  }
  return { startAt: new Date(start).toISOString(), endAt: new Date(end).toISOString() };
}
