import type { JsonObject } from './json-object';

const MAX_LENGTH = 200;

export type DistinctIdResult =
  | { ok: true; value: string }
  | { ok: false; reason: 'missing_distinct_id' | 'empty_distinct_id' | 'invalid_distinct_id' };

/**
 * Order: top-level `distinct_id`, then `properties.distinct_id` (batch elements, per the spec),
 * then `$distinct_id`. Non-strings are stringified (posthog-js accepts any value as an id), except
 * a non-finite number, refused;
 * NUL is replaced and the id is cut to 200 characters, as PostHog's capture does.
 */
export function extractDistinctId(raw: JsonObject, properties: JsonObject): DistinctIdResult {
  const candidate = raw.distinct_id ?? properties.distinct_id ?? raw.$distinct_id;
  if (candidate === undefined || candidate === null) return { ok: false, reason: 'missing_distinct_id' };
  // `1e309` parses to Infinity (and nothing finite prints as "NaN"): no client meant that id, and
  // PostHog's capture refuses a number JSON cannot hold rather than storing "Infinity".
  if (typeof candidate === 'number' && !Number.isFinite(candidate)) return { ok: false, reason: 'invalid_distinct_id' };
  let text = stringify(candidate);
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, a shortcut: the replace changes nothing without NUL
  if (text.includes('\0')) text = text.replace(/\0/g, '\uFFFD');
  if (text.trim() === '') return { ok: false, reason: 'empty_distinct_id' };
  return { ok: true, value: truncate(text) };
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  // Stryker disable next-line all: equivalent, JSON.stringify writes finite numbers and booleans the same, and parsed JSON has no bigints
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

function truncate(text: string): string {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, a shortcut: at most 200 units are at most 200 code points
  if (text.length <= MAX_LENGTH) return text;
  const codePoints = Array.from(text);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, a shortcut: slicing 200 of at most 200 code points gives the text
  return codePoints.length <= MAX_LENGTH ? text : codePoints.slice(0, MAX_LENGTH).join('');
}

/**
 * The other ids an event names for merging (`$anon_distinct_id` of `$identify`, `alias`): a
 * non-finite number there would merge with a person called "Infinity", so it is dropped and the
 * event merges nothing, as when the id is absent.
 */
export function dropNonFiniteIds(properties: JsonObject): void {
  for (const field of ['$anon_distinct_id', 'alias']) {
    const value = properties[field];
    if (typeof value === 'number' && !Number.isFinite(value)) delete properties[field];
  }
}
