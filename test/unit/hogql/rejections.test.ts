import { describe, expect, it } from 'vitest';
import { deriveSchema, HogQLError, parseHogQL } from '../../../src/exports/hogql/index';
import type { HogQLErrorCode } from '../../../src/exports/hogql/index';

function rejection(query: string): HogQLError {
  try {
    parseHogQL(query);
  } catch (error) {
    if (error instanceof HogQLError) return error;
    throw error;
  }
  throw new Error(`accepted: ${query}`);
}

const PARSE = 'Failed to parse query';
const NOT_SUPPORTED = (what: string): string => `Unsupported HogQL query: ${what} is not supported in batch exports`;

// [query, code, exact message, fragment of reason]
const CASES: readonly [string, HogQLErrorCode, string, string][] = [
  // PostHog's own invalid-query examples (posthog/api/test/batch_exports/test_create.py).
  ['SELECT', 'parse_error', PARSE, 'expected an expression, found end of query'],
  ['SELECT event,, FROM events', 'parse_error', PARSE, "found ','"],
  ['SELECT unknown_field FROM events', 'unresolved_field', 'Invalid HogQL query: Unable to resolve field: unknown_field', 'unknown_field'],
  ['SELECT event, persons.id FROM events LEFT JOIN persons ON events.person_id = persons.id', 'join', 'JOINs are not supported', 'JOIN'],
  ['SELECT event FROM events UNION ALL SELECT event FROM events', 'union', 'UNIONs are not supported', 'UNION'],
  // Structure, with PostHog's BatchExportSerializer.validate_hogql_query wording.
  ['SELECT 1', 'missing_from', 'Query must SELECT FROM events', 'FROM events'],
  ["SELECT 1 WHERE event = 'x'", 'missing_from', 'Query must SELECT FROM events', 'FROM events'],
  ['SELECT event FROM persons', 'not_events', 'Query must only SELECT FROM events', "'persons'"],
  ['SELECT event FROM posthog.events', 'not_events', 'Query must only SELECT FROM events', 'posthog.events'],
  ['SELECT event FROM EVENTS', 'not_events', 'Query must only SELECT FROM events', 'EVENTS'],
  ['SELECT number FROM numbers(10)', 'not_events', 'Query must only SELECT FROM events', 'numbers(...)'],
  ['SELECT event FROM (SELECT event FROM events)', 'subquery', 'Subqueries or CTEs are not supported', 'Subqueries'],
  ['WITH x AS (SELECT 1) SELECT event FROM events', 'subquery', 'Subqueries or CTEs are not supported', 'Subqueries'],
  ['SELECT event FROM events WHERE event IN (SELECT event FROM events)', 'subquery', 'Subqueries or CTEs are not supported', 'CTEs'],
  ['SELECT (SELECT 1) FROM events', 'subquery', 'Subqueries or CTEs are not supported', 'CTEs'],
  ['SELECT event FROM events, persons', 'join', 'JOINs are not supported', 'JOIN'],
  ['SELECT event FROM events e INNER JOIN persons p ON 1', 'join', 'JOINs are not supported', 'JOIN'],
  ['SELECT event FROM events ARRAY JOIN x', 'join', 'JOINs are not supported', 'JOIN'],
  ['SELECT event FROM events WHERE 1 = 1 EXCEPT SELECT 1', 'union', 'UNIONs are not supported', 'UNION'],
  // Resolution, with PostHog's HogQL resolver wording behind "Invalid HogQL query: ".
  ['SELECT Event FROM events', 'unresolved_field', 'Invalid HogQL query: Unable to resolve field: Event', 'Event'],
  ['SELECT event.name FROM events', 'unresolved_field', 'Invalid HogQL query: Unable to resolve field: event.name', 'event.name'],
  ['SELECT properties FROM events WHERE browser = 1', 'unresolved_field', 'Invalid HogQL query: Unable to resolve field: browser', 'browser'],
  ['SELECT count() FROM events', 'unsupported_function', "Invalid HogQL query: Unsupported function call 'count(...)'", 'count'],
  ['SELECT sleep(3) FROM events', 'unsupported_function', "Invalid HogQL query: Unsupported function call 'sleep(...)'", 'sleep'],
  ['SELECT toJSONString(properties) FROM events', 'unsupported_function', "Invalid HogQL query: Unsupported function call 'toJSONString(...)'", 'toJSONString'],
  ['SELECT toString(event, uuid) FROM events', 'function_arity', "Invalid HogQL query: Function 'toString' expects 1 argument, found 2", 'found 2'],
  ['SELECT coalesce() FROM events', 'function_arity', "Invalid HogQL query: Function 'coalesce' expects at least 1 argument, found 0", 'at least'],
  // Valid HogQL refused here on purpose.
  ['SELECT event FROM events GROUP BY event', 'unsupported', NOT_SUPPORTED('GROUP BY'), 'GROUP BY'],
  ['SELECT event FROM events ORDER BY timestamp', 'unsupported', NOT_SUPPORTED('ORDER BY'), 'ORDER BY'],
  ['SELECT event FROM events LIMIT 10', 'unsupported', NOT_SUPPORTED('LIMIT'), 'LIMIT'],
  ["SELECT event FROM events WHERE event = 'a' HAVING 1", 'unsupported', NOT_SUPPORTED('HAVING'), 'HAVING'],
  ['SELECT event FROM events SETTINGS max_threads = 1', 'unsupported', NOT_SUPPORTED('SETTINGS'), 'SETTINGS'],
  ['SELECT event FROM events FINAL', 'unsupported', NOT_SUPPORTED('FINAL'), 'FINAL'],
  ['SELECT event LIMIT 1', 'unsupported', NOT_SUPPORTED('LIMIT'), 'LIMIT'],
  ['SELECT DISTINCT event FROM events', 'unsupported', NOT_SUPPORTED('DISTINCT'), 'DISTINCT'],
  ['SELECT * FROM events', 'unsupported', NOT_SUPPORTED('SELECT *'), 'SELECT *'],
  ['SELECT team_id + 1 FROM events', 'unsupported', NOT_SUPPORTED("operator '+'"), "'+'"],
  ["SELECT event || 'x' FROM events", 'unsupported', NOT_SUPPORTED("operator '||'"), "'||'"],
  ['SELECT -team_id FROM events', 'unsupported', NOT_SUPPORTED("operator '-'"), "'-'"],
  ['SELECT event::String FROM events', 'unsupported', NOT_SUPPORTED("cast operator '::'"), '::'],
  ['SELECT properties.arr[1] FROM events', 'unsupported', NOT_SUPPORTED('array indexing'), 'array'],
  ["SELECT CASE WHEN 1 THEN 'a' END FROM events", 'unsupported', NOT_SUPPORTED('CASE'), 'CASE'],
  ['SELECT event FROM events WHERE team_id BETWEEN 1 AND 2', 'unsupported', NOT_SUPPORTED('BETWEEN'), 'BETWEEN'],
  ['SELECT event FROM events WHERE event LIKE uuid', 'unsupported', NOT_SUPPORTED('a LIKE pattern other than a string literal'), 'LIKE'],
  ['SELECT event FROM events WHERE event IN (uuid)', 'unsupported', NOT_SUPPORTED('an IN list item other than a literal'), 'IN list'],
  ["SELECT event FROM events WHERE event IN ('a', 1)", 'unsupported', NOT_SUPPORTED('an IN list mixing strings and numbers'), 'mixing'],
  ['SELECT event FROM events WHERE properties.is_bot', 'unsupported', NOT_SUPPORTED('a WHERE clause that is not a condition'), 'WHERE'],
  ["SELECT event FROM events WHERE event AND event = 'x'", 'unsupported', NOT_SUPPORTED('an operand of AND that is not a condition'), 'AND'],
  ['SELECT NOT event FROM events', 'unsupported', NOT_SUPPORTED('an operand of NOT that is not a condition'), 'NOT'],
  ['SELECT event, event FROM events', 'unsupported', NOT_SUPPORTED("the duplicate column name 'event'"), 'duplicate'],
  ['SELECT uuid AS a, event AS a FROM events', 'unsupported', NOT_SUPPORTED("the duplicate column name 'a'"), 'duplicate'],
  ['SELECT (event, uuid) FROM events', 'unsupported', NOT_SUPPORTED('tuples'), 'tuples'],
  ['SELECT [1, 2] FROM events', 'unsupported', NOT_SUPPORTED('array literals'), 'array'],
  ['SELECT count(DISTINCT event) FROM events', 'unsupported', NOT_SUPPORTED('DISTINCT'), 'DISTINCT'],
  ['SELECT quantile(0.5)(team_id) FROM events', 'unsupported', NOT_SUPPORTED('parametric functions'), 'parametric'],
  // Syntax and lexical refusals.
  ['', 'parse_error', PARSE, 'expected SELECT'],
  ['   ', 'parse_error', PARSE, 'expected SELECT'],
  ['DROP TABLE events', 'parse_error', PARSE, 'only SELECT statements'],
  ["INSERT INTO events VALUES ('x')", 'parse_error', PARSE, 'only SELECT statements'],
  ['SELECT event FROM events; DROP TABLE events', 'parse_error', PARSE, 'multiple statements'],
  ['SELECT event FROM events;;', 'parse_error', PARSE, 'multiple statements'],
  ['SELECT event FROM events -- comment', 'parse_error', PARSE, 'comments are not allowed'],
  ['SELECT event /* c */ FROM events', 'parse_error', PARSE, 'comments are not allowed'],
  ['SELECT {placeholder} FROM events', 'parse_error', PARSE, 'placeholders'],
  ["SELECT 'unterminated FROM events", 'parse_error', PARSE, 'unterminated string literal'],
  ['SELECT `unterminated FROM events', 'parse_error', PARSE, 'unterminated quoted identifier'],
  ["SELECT 'a\\q' FROM events", 'parse_error', PARSE, 'invalid escape sequence'],
  ['SELECT 12abc FROM events', 'parse_error', PARSE, 'invalid number'],
  ['SELECT 1e999 FROM events', 'parse_error', PARSE, 'out of range'],
  ['SELECT event FROM events WHERE event = = 1', 'parse_error', PARSE, 'expected an expression'],
  ["SELECT event FROM events WHERE event = 'a' = 'b'", 'parse_error', PARSE, 'expected end of query'],
  ['SELECT event FROM events WHERE event IS NOT 1', 'parse_error', PARSE, 'expected NULL'],
  ['SELECT event FROM events WHERE event NOT 1', 'parse_error', PARSE, 'expected end of query'],
  ['SELECT event FROM events WHERE', 'parse_error', PARSE, 'expected an expression'],
  ['SELECT event AS FROM events', 'parse_error', PARSE, 'expected an alias'],
  ['SELECT event AS `` FROM events', 'parse_error', PARSE, 'must not be empty'],
  ['SELECT event AS `a\\nb` FROM events', 'parse_error', PARSE, 'control characters'],
  ['SELECT event FROM events WHERE event = \u00a7', 'parse_error', PARSE, 'unexpected character'],
  ['SELECT event browser FROM events', 'parse_error', PARSE, "expected ',' or FROM"],
  ['SELECT properties.1 FROM events', 'parse_error', PARSE, "expected ',' or FROM"],
  [`SELECT ${'('.repeat(40)}1${')'.repeat(40)} FROM events`, 'parse_error', PARSE, 'nested too deeply'],
  [`SELECT event FROM events WHERE ${'NOT '.repeat(40)}event = 'a'`, 'parse_error', PARSE, 'nested too deeply'],
  [`SELECT '${'x'.repeat(70_000)}' FROM events`, 'parse_error', PARSE, 'longer than'],
];

describe('rejected queries', () => {
  it.each(CASES.map((c) => [c[0].length > 100 ? `${c[0].slice(0, 100)}...` : c[0], ...c] as const))('%s', (_title, query, code, message, reasonFragment) => {
    const error = rejection(query);
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
    expect(error.reason).toContain(reasonFragment);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('HogQLError');
  });

  it('reports the position of a syntax error', () => {
    const error = rejection('SELECT event FROM events WHERE event = = 1');
    expect(error.position).toBe(39);
    expect(error.reason).toBe("expected an expression, found '=' at position 39");
  });

  it('refuses a query that is not a string', () => {
    expect(() => parseHogQL(42 as unknown as string)).toThrow(HogQLError);
  });

  it('deriveSchema throws the same errors', () => {
    expect(() => deriveSchema('SELECT event FROM persons')).toThrow('Query must only SELECT FROM events');
  });
});
