import { validationError } from '../errors';

/**
 * A point in the log's history: a moment (events recorded at or before it) or a log position
 * (events at or below it). Positions are compared, never computed: `position:<p>` names any
 * position a reader was handed (an append's answer, `/_health`, `replay`).
 */
export type AsOf = { readonly at: string } | { readonly position: number };

// ISO 8601 date, or date and time with an optional fraction and zone (none means UTC, as PostHog reads it).
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export const AS_OF_HELP = 'An ISO 8601 time (e.g. `2026-01-31T12:00:00Z`) or `position:<p>`: the object as it stood then.';

/**
 * The read side does not hold what a past is folded from yet: after an upgrade, until the ingestion
 * projection's new version (which records it) has been rebuilt side by side and took over.
 */
export class HistoryNotReadyError extends Error {
  override name = 'HistoryNotReadyError';
}

/** The `as_of` query parameter, or a validation error (400) naming it. */
export function parseAsOf(text: string): AsOf {
  const value = text.trim();
  const position = /^position:(\d{1,15})$/.exec(value);
  if (position) return { position: Number(position[1]) };
  if (ISO.test(value) && realCalendar(value)) {
    const zoned = /[T ]\d{2}:\d{2}/.test(value) && !/(?:Z|[+-]\d{2}:?\d{2})$/.test(value) ? `${value.replace(' ', 'T')}Z` : value.replace(' ', 'T');
    const ms = Date.parse(zoned);
    if (Number.isFinite(ms)) return { at: new Date(ms).toISOString() };
  }
  throw validationError(`as_of must be an ISO 8601 time (e.g. 2026-01-31T12:00:00Z) or position:<p> with a whole number p; got "${text.slice(0, 64)}".`, 'as_of', 'invalid_as_of');
}

/** The date's day exists in its month and the clock reads below 24:00 (Date.parse rolls 02-30 over to March). */
function realCalendar(value: string): boolean {
  const [, y, m, d, hh = '0', mm = '0', ss = '0'] = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(value) ?? [];
  const month = Number(m);
  if (month < 1 || month > 12) return false;
  const days = new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
  return Number(d) >= 1 && Number(d) <= days && Number(hh) < 24 && Number(mm) < 60 && Number(ss) < 60;
}

/** Whether an event recorded at `recordedAt` (ISO, UTC) at `position` belongs to the history up to `asOf`. */
export function within(asOf: AsOf, event: { position: number; metadata: { recordedAt: string } }): boolean {
  return 'position' in asOf ? event.position <= asOf.position : Date.parse(event.metadata.recordedAt) <= Date.parse(asOf.at);
}
