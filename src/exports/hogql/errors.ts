/**
 * Errors raised while accepting a batch export's `hogql_query`.
 *
 * `message` carries PostHog's wording wherever PostHog has one (its BatchExportSerializer and the
 * HogQL resolver it calls), so an API client sees the same text it would get from PostHog.
 * PostHog says only "Failed to parse query" for every syntax error; `reason` keeps the detail
 * (and `position` the 0-based offset in the query) so operators and logs still learn what broke.
 */

export type HogQLErrorCode =
  /** Syntax error, including constructs this subset refuses at the token level (comments, ...). */
  | 'parse_error'
  | 'union'
  | 'missing_from'
  | 'subquery'
  | 'not_events'
  | 'join'
  | 'unresolved_field'
  | 'unsupported_function'
  | 'function_arity'
  /** Valid HogQL that batch exports here refuse on purpose (GROUP BY, arithmetic, ...). */
  | 'unsupported';

export class HogQLError extends Error {
  override readonly name = 'HogQLError';
  readonly code: HogQLErrorCode;
  readonly reason: string;
  readonly position: number | null;

  constructor(code: HogQLErrorCode, message: string, reason: string, position: number | null = null) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.position = position;
  }
}

const at = (position: number | null): string => (position === null ? '' : ` at position ${position}`);

export function parseError(reason: string, position: number | null): HogQLError {
  return new HogQLError('parse_error', 'Failed to parse query', `${reason}${at(position)}`, position);
}

export function unionError(position: number): HogQLError {
  return new HogQLError('union', 'UNIONs are not supported', 'UNION, EXCEPT and INTERSECT are not supported', position);
}

export function missingFromError(): HogQLError {
  const message = 'Query must SELECT FROM events';
  return new HogQLError('missing_from', message, message);
}

export function subqueryError(position: number): HogQLError {
  const message = 'Subqueries or CTEs are not supported';
  return new HogQLError('subquery', message, message, position);
}

export function notEventsError(table: string, position: number): HogQLError {
  return new HogQLError('not_events', 'Query must only SELECT FROM events', `table '${table}' is not events`, position);
}

export function joinError(position: number): HogQLError {
  const message = 'JOINs are not supported';
  return new HogQLError('join', message, message, position);
}

/** PostHog wraps resolver errors as "Invalid HogQL query: <resolver message>". */
function invalid(code: HogQLErrorCode, detail: string, position: number | null): HogQLError {
  return new HogQLError(code, `Invalid HogQL query: ${detail}`, detail, position);
}

export function unresolvedFieldError(name: string, position: number | null): HogQLError {
  return invalid('unresolved_field', `Unable to resolve field: ${name}`, position);
}

export function unsupportedFunctionError(name: string, position: number | null): HogQLError {
  return invalid('unsupported_function', `Unsupported function call '${name}(...)'`, position);
}

export function arityError(name: string, min: number, max: number | null, found: number, position: number | null): HogQLError {
  const plural = (n: number): string => (n === 1 ? '' : 's');
  const detail =
    min === max
      ? `Function '${name}' expects ${min} argument${plural(min)}, found ${found}`
      : found < min
        ? `Function '${name}' expects at least ${min} argument${plural(min)}, found ${found}`
        : `Function '${name}' expects at most ${max ?? 0} argument${plural(max ?? 0)}, found ${found}`;
  return invalid('function_arity', detail, position);
}

/** PostHog has no message here (it accepts these); the prefix is its generic serializer wording. */
export function unsupportedError(what: string, position: number | null): HogQLError {
  const detail = `${what} is not supported in batch exports`;
  return new HogQLError('unsupported', `Unsupported HogQL query: ${detail}`, `${detail}${at(position)}`, position);
}
