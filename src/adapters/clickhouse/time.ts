/*
 * Times are stored as Int64 milliseconds since the epoch. 18.16 has no DateTime64 (20.1) and its
 * DateTime keeps whole seconds; an integer keeps the milliseconds, sorts and compares like the
 * embedded store's canonical ISO text (for years 0000–9999, the only ones toISOString writes
 * without a sign), costs 8 bytes instead of 24, and turns back into the same canonical ISO text.
 */

export function toMs(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`not a timestamp: ${iso}`);
  return ms;
}

/** The reference: toISOString of the milliseconds (a JSONEachRow Int64 comes quoted). */
export function fromMsReference(value: string | number): string {
  return new Date(Number(value)).toISOString();
}

const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from there on toISOString writes a sign and six digits. */
const YEAR_10000_MS = 253_402_300_800_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/** The date part ("YYYY-MM-DDT") of the last day asked for: exports read rows in time order. */
let memoDay = Number.NaN;
let memoDate = '';

/** "YYYY-MM-DDT" of a day counted from 1970-01-01 (the proleptic Gregorian calendar, as Date's). */
function datePart(day: number): string {
  // Days since 0000-03-01, in 400-year eras: the leap day ends each year.
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const dayOfMonth = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  // Years 1970–9999 only (fromMs), so four digits without padding.
  return `${year}-${TWO_DIGITS[month]}-${TWO_DIGITS[dayOfMonth]}T`;
}

/**
 * From a JSONEachRow Int64 (quoted by the server) or a plain number: the same text as
 * fromMsReference, without a Date per value (exports convert two times per row). Times outside
 * 1970–9999 take the reference.
 */
export function fromMs(value: string | number): string {
  const ms = Number(value);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, a time sent to the reference gets the same text (the guard keeps the arithmetic to the years it was tested on)
  if (!(ms >= 0 && ms < YEAR_10000_MS) || !Number.isInteger(ms)) return fromMsReference(ms);
  const day = Math.floor(ms / DAY_MS);
  // Stryker disable next-line ConditionalExpression: equivalent, the memo only spares recomputing the same date
  if (day !== memoDay) {
    memoDate = datePart(day);
    memoDay = day;
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${memoDate}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[rest - seconds * 1000]}Z`;
}
