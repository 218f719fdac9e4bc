/**
 * Date parsing for the is_date_* operators. Everything is read in UTC (the project has no team
 * timezone), and never through the host's local time zone, so results do not depend on the machine.
 */

const RELATIVE = /^-?(\d+)([hdwmy])$/;
const ISO_LIKE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

// Months and years step back one at a time, clamping the day each step (Mar 31 - 2m = Jan 28),
// which is how the flags service (and dateutil's relativedelta before it) counts.
function monthsBack(from: Date, months: number): Date {
  let year = from.getUTCFullYear();
  let month = from.getUTCMonth();
  let day = from.getUTCDate();
  for (let i = 0; i < months; i++) {
    month -= 1;
    // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent, Date.UTC reads month -1 as December of the year before too
    if (month < 0) {
      month = 11;
      year -= 1;
    }
    day = Math.min(day, daysInMonth(year, month));
  }
  return atDay(from, year, month, day);
}

function yearsBack(from: Date, years: number): Date {
  const year = from.getUTCFullYear() - years;
  const month = from.getUTCMonth();
  return atDay(from, year, month, Math.min(from.getUTCDate(), daysInMonth(year, month)));
}

function atDay(from: Date, year: number, month: number, day: number): Date {
  const timeOfDay = from.getTime() - Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
  return new Date(Date.UTC(year, month, day) + timeOfDay);
}

/**
 * `-7d`, `2h`, `-1w`, `3m`, `-1y` (sign optional, both mean "ago") relative to `now`.
 * Counts of 10000 or more are not relative dates, as on the flags service.
 */
export function parseRelativeDate(text: string, now: Date): Date | null {
  const match = RELATIVE.exec(text.trim());
  if (!match) return null;
  const count = Number(match[1]);
  if (count >= 10_000) return null;
  switch (match[2]) {
    case 'h':
      return new Date(now.getTime() - count * HOUR_MS);
    case 'd':
      return new Date(now.getTime() - count * DAY_MS);
    case 'w':
      return new Date(now.getTime() - count * 7 * DAY_MS);
    case 'm':
      return monthsBack(now, count);
    default:
      return yearsBack(now, count);
  }
}

/** ISO 8601 dates and datetimes; no offset means UTC. */
export function parseIsoDate(text: string): Date | null {
  const m = ISO_LIKE.exec(text.trim());
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((p) => Number(p ?? 0));
  const millis = m[7] ? Math.round(Number(`0.${m[7]}`) * 1000) : 0;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month - 1)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let ms = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const zone = m[8];
  // Stryker disable next-line MethodExpression,StringLiteral,ConditionalExpression: equivalent, "Z" taken as an offset has no digits, that is +0
  if (zone && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    // Number('') is 0: `+05` has no minutes.
    const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
    ms -= (zone[0] === '-' ? -1 : 1) * offsetMinutes * 60_000;
  }
  return new Date(ms);
}

/** The filter side: relative to `now`, else absolute. */
export function parseFilterDate(value: unknown, now: Date): Date | null {
  if (typeof value !== 'string') return null;
  return parseRelativeDate(value, now) ?? parseIsoDate(value);
}

/**
 * The person/group property side. Numbers (and numeric strings) are Unix timestamps in
 * seconds, as the flags service reads them; Date objects are accepted for in-process callers.
 */
export function parsePropertyDate(value: unknown): Date | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  if (typeof value === 'number') return fromUnixSeconds(value);
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^[+-]?\d+(\.\d+)?$/.test(text)) return fromUnixSeconds(Number(text));
  return parseIsoDate(text);
}

function fromUnixSeconds(seconds: number): Date | null {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? null : date;
}
