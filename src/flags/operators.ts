import { parseFilterDate, parsePropertyDate } from './dates';
import { regexSearch } from './regex';
import type { RegexBudget } from './regex-budget';
import { isSemverOperator, matchSemver } from './semver';
import type { PropertyFilter } from './types';
import { asciiLower, isBooleanLike, isTruthy, toNumber, toText } from './values';

/**
 * Property matching for one filter, with the flags service's (server-side) semantics.
 *
 * A property that is absent (or undefined) matches only `is_not_set` and the negative operators
 * (`is_not`, `not_icontains`, `not_regex`, `not_starts_with`, `not_ends_with`): "not equal to X"
 * holds for someone who has no value at all. A null value is the text "null" for the string
 * operators and matches none of the numeric, date or semver ones. Unknown operators never match.
 */

const NEGATIVE_WHEN_MISSING = new Set(['is_not', 'not_icontains', 'not_regex', 'not_starts_with', 'not_ends_with']);
const NULL_AS_TEXT = new Set([
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
]);

function exactMatch(filterValue: unknown, actual: unknown): boolean {
  // Stryker disable next-line ConditionalExpression: equivalent, a shortcut: no candidate of an empty list matches below either
  if (Array.isArray(filterValue) && filterValue.length === 0) return false;
  // "true"/"false" filters compare truthiness, so a boolean property matches a "True" filter.
  if (isBooleanLike(filterValue)) return isTruthy(filterValue) === isTruthy(actual);
  const target = toText(actual).toLowerCase();
  if (!Array.isArray(filterValue)) return toText(filterValue).toLowerCase() === target;
  for (const candidate of filterValue) if (toText(candidate).toLowerCase() === target) return true;
  return false;
}

function compareOrdered(operator: string, actual: unknown, filterValue: unknown): boolean {
  const [a, b] = [toNumber(actual), toNumber(filterValue)];
  // Numbers when both sides are numeric, else plain string order (so "b" > "a").
  const order = a !== null && b !== null ? Math.sign(a - b) : textOrder(toText(actual), toText(filterValue));
  switch (operator) {
    case 'gt':
      return order > 0;
    case 'gte':
      return order >= 0;
    case 'lt':
      return order < 0;
    default:
      return order <= 0;
  }
}

function textOrder(a: string, b: string): number {
  // Stryker disable next-line EqualityOperator: equivalent, a and b differ here
  return a === b ? 0 : a < b ? -1 : 1;
}

function matchDate(operator: string, actual: unknown, filterValue: unknown, now: Date): boolean {
  const target = parseFilterDate(filterValue, now);
  const value = parsePropertyDate(actual);
  if (target === null || value === null) return false;
  if (operator === 'is_date_before') return value.getTime() < target.getTime();
  if (operator === 'is_date_after') return value.getTime() > target.getTime();
  return value.getTime() === target.getTime();
}

function matchText(operator: string, actual: unknown, filterValue: unknown): boolean {
  const [haystack, needle] = [asciiLower(toText(actual)), asciiLower(toText(filterValue))];
  switch (operator) {
    case 'icontains':
      return haystack.includes(needle);
    case 'not_icontains':
      return !haystack.includes(needle);
    case 'starts_with':
      return haystack.startsWith(needle);
    case 'not_starts_with':
      return !haystack.startsWith(needle);
    case 'ends_with':
      return haystack.endsWith(needle);
    default:
      return !haystack.endsWith(needle);
  }
}

const TEXT_OPERATORS = new Set([
  'icontains',
  'not_icontains',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
]);

function matchValue(operator: string, actual: unknown, filterValue: unknown, now: Date, budget: RegexBudget | undefined): boolean {
  if (actual === null && !NULL_AS_TEXT.has(operator)) return false;
  if (operator === 'exact') return exactMatch(filterValue, actual);
  if (operator === 'is_not') return !exactMatch(filterValue, actual);
  if (TEXT_OPERATORS.has(operator)) return matchText(operator, actual, filterValue);
  if (operator === 'regex' || operator === 'not_regex') {
    const found = regexSearch(toText(filterValue), toText(actual), budget);
    if (found === null) return false;
    return operator === 'regex' ? found : !found;
  }
  if (operator === 'gt' || operator === 'gte' || operator === 'lt' || operator === 'lte') {
    return compareOrdered(operator, actual, filterValue);
  }
  if (operator === 'is_date_before' || operator === 'is_date_after' || operator === 'is_date_exact') {
    return matchDate(operator, actual, filterValue, now);
  }
  // Stryker disable next-line ConditionalExpression: equivalent, matchSemver refuses operators it does not know too
  if (isSemverOperator(operator)) return matchSemver(operator, actual, filterValue);
  return false;
}

/** Reads one property: `found` is false when the key is absent. May throw (e.g. a failing lookup). */
export type PropertyReader = (key: string) => { found: boolean; value: unknown };

export function readerFor(properties: Record<string, unknown>): PropertyReader {
  return (key) => {
    const found = Object.prototype.hasOwnProperty.call(properties, key);
    return { found, value: found ? properties[key] : undefined };
  };
}

/**
 * Whether the properties behind `read` satisfy one person/group property filter. `budget`, the
 * request's regex budget, is paid by regex conditions; throws RegexBudgetExceeded when it runs out.
 */
export function matchFilter(filter: PropertyFilter, read: PropertyReader, now: Date, budget?: RegexBudget): boolean {
  const operator = filter.operator || 'exact';
  const { found, value } = read(filter.key);
  const missing = !found || value === undefined;
  if (operator === 'is_set') return !missing;
  if (operator === 'is_not_set') return missing;
  if (filter.value === undefined || filter.value === null) return false;
  if (missing) return NEGATIVE_WHEN_MISSING.has(operator);
  return matchValue(operator, value, filter.value, now, budget);
}

/** Whether `properties` satisfy one person/group property filter. */
export function matchProperty(filter: PropertyFilter, properties: Record<string, unknown>, now: Date): boolean {
  return matchFilter(filter, readerFor(properties), now);
}

/** Cohort filters: `in` (the default) or `not_in` the cohort whose id is the filter value. */
export function matchCohort(filter: PropertyFilter, cohorts: ReadonlySet<number> | undefined): boolean {
  const id = toNumber(filter.value);
  if (id === null) return false;
  const member = cohorts?.has(id) ?? false;
  return filter.operator === 'not_in' ? !member : member;
}
