/**
 * Parses the dates clients put in `timestamp` / `sent_at` into epoch milliseconds, accepting
 * what PostHog's capture accepts: RFC 3339 / ISO 8601 (short `+03` offsets too), date-only and
 * zone-less forms (read as UTC), `Y/M/D` and US `M/D/Y`, RFC 2822, and epoch numbers in
 * s / ms / µs / ns. Never reads the host time zone, so results do not depend on where it runs.
 */
export function parseClientDate(value: unknown): number | undefined {
  // A request's events usually share one sent_at and similar timestamps: remember the last string.
  // Stryker disable next-line all: equivalent, a cache: parsing again gives the same answer
  if (typeof value === 'string' && value === last.text) return last.ms;
  const ms = fastIso(value) ?? parseAny(value);
  const result = ms !== undefined && hasFourDigitYear(ms) ? ms : undefined;
  // Stryker disable next-line all: equivalent, a cache (see above)
  if (typeof value === 'string') last = { text: value, ms: result };
  return result;
}

let last: { text: string; ms: number | undefined } = { text: '', ms: undefined };

/** What SDKs send (toISOString's shape, UTC): Date.parse is exact and zone-independent for it. */
const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,3})?Z$/;
// Stryker disable all: equivalent, a shortcut: parseIso reads the canonical form to the same ms
function fastIso(value: unknown): number | undefined {
  if (typeof value !== 'string' || !CANONICAL.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
// Stryker restore all

/** Only years 0..9999 print as plain ISO 8601; PostHog rejects the others too. */
export function hasFourDigitYear(ms: number): boolean {
  const year = new Date(ms).getUTCFullYear();
  return Number.isFinite(year) && year >= 0 && year <= 9999;
}

function parseAny(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? fromEpochNumber(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, a shortcut: every parser below refuses ''
  if (text === '') return undefined;
  return parseIso(text) ?? parseEpochText(text) ?? parseSlashed(text) ?? parseRfc2822(text);
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/;
const YMD_SLASHED = /^(\d{4})\/(\d{1,2})\/(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
const MDY_SLASHED = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
const EPOCH = /^-?\d+(?:\.\d+)?$/;
/** Only with an explicit zone: zone-less forms would be read in the host's zone by Date.parse. */
const RFC2822 =
  /^(?:[A-Za-z]{3},?\s+)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{1,2}:\d{2}(?::\d{2})?\s+(?:[+-]\d{4}|GMT|UTC|UT|Z)$/;

function parseIso(text: string): number | undefined {
  const m = ISO.exec(text);
  if (m === null) return undefined;
  const offset = zoneOffsetMinutes(m[8]);
  // Stryker disable next-line ConditionalExpression: equivalent, the NaN it would give is refused as a year too (and the ISO pattern only captures readable zones)
  if (offset === undefined) return undefined;
  const millis = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0').slice(0, 3));
  const local = civilToEpoch(num(m[1]), num(m[2]), num(m[3]), num(m[4]), num(m[5]), num(m[6]), millis);
  // Stryker disable next-line ConditionalExpression: equivalent, undefined - n is NaN, refused as a year by the caller
  return local === undefined ? undefined : local - offset * 60_000;
}

function parseSlashed(text: string): number | undefined {
  const ymd = YMD_SLASHED.exec(text);
  if (ymd !== null) return civilToEpoch(num(ymd[1]), num(ymd[2]), num(ymd[3]), num(ymd[4]), num(ymd[5]), num(ymd[6]), 0);
  const mdy = MDY_SLASHED.exec(text);
  if (mdy !== null) return civilToEpoch(num(mdy[3]), num(mdy[1]), num(mdy[2]), num(mdy[4]), num(mdy[5]), num(mdy[6]), 0);
  return undefined;
}

function parseEpochText(text: string): number | undefined {
  return EPOCH.test(text) ? fromEpochNumber(Number(text)) : undefined;
}

function parseRfc2822(text: string): number | undefined {
  if (!RFC2822.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The magnitude tells the unit, as in PostHog's date parser: 10 digits are seconds, 13 ms, ... */
function fromEpochNumber(n: number): number {
  const magnitude = Math.abs(n);
  if (magnitude < 1e11) return Math.round(n * 1000);
  if (magnitude < 1e14) return Math.round(n);
  if (magnitude < 1e17) return Math.round(n / 1e3);
  return Math.round(n / 1e6);
}

function zoneOffsetMinutes(zone: string | undefined): number | undefined {
  // Stryker disable next-line Regex: equivalent, the zone is a whole capture of the ISO pattern
  if (zone === undefined || /^(Z|z|UTC|GMT)$/.test(zone)) return 0;
  // Stryker disable next-line Regex: equivalent, as above
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  // Stryker disable next-line ConditionalExpression: equivalent, the ISO pattern only captures zones this reads
  if (m === null) return undefined;
  const hours = Number(m[2]);
  const minutes = m[3] === undefined ? 0 : Number(m[3]);
  if (hours > 23 || minutes > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** Validates each field (Date.UTC would silently roll 2023-02-30 over into March). */
function civilToEpoch(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  millis: number,
): number | undefined {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime();
}

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

const num = (digits: string | undefined): number => (digits === undefined ? 0 : Number(digits));
