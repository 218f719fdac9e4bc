/**
 * Conditions over the fixture events (sqlite-fixture.ts) and the team-1 uuids they select, in
 * timestamp order. Shared by the SQLite test and the live ClickHouse test, so both engines are
 * held to the same answers.
 */
export const WHERE_CASES: readonly (readonly [string, readonly string[]])[] = [
  ["event = '$pageview'", ['u1', 'u3']],
  ["event != '$pageview'", ['u2']],
  ['properties.count > 4', ['u1', 'u2']],
  ['properties.count = 5', ['u1']],
  ['properties.count < 100 AND properties.count >= 12', ['u2']],
  ["properties.$browser LIKE 'chrome%'", ['u3']],
  ["properties.$browser ILIKE 'CHROME%'", ['u2', 'u3']],
  ["properties.$browser NOT LIKE '%o%'", []],
  ["properties.path LIKE '/a\\\\%b\\\\_c'", ['u3']],
  ["properties.path LIKE '/a_b%'", ['u3']],
  ["event LIKE '[$]%'", []],
  ["event IN ('signup', 'nothing')", ['u2']],
  ["event NOT IN ('signup')", ['u1', 'u3']],
  ['properties.plan IS NULL', ['u2', 'u3']],
  ['properties.plan = NULL', ['u2', 'u3']],
  ['properties.plan IS NOT NULL', ['u1']],
  ["NOT (event = 'signup' OR properties.plan = 'pro')", ['u3']],
  // Null-safe like HogQL: a missing property is "not equal", never unknown.
  ["properties.plan != 'pro'", ['u2', 'u3']],
  ["properties.plan NOT IN ('pro')", ['u2', 'u3']],
  ["properties.plan NOT LIKE 'p%'", ['u2', 'u3']],
  ['properties.plan = properties.nothing', ['u2', 'u3']],
  ['properties.plan != properties.nothing', ['u1']],
  ['properties.count > 100 OR NOT properties.count > 100', ['u1', 'u2', 'u3']],
  ['person_id IS NULL', ['u3']],
  ['team_id IN (1, 2)', ['u1', 'u2', 'u3']],
  ["timestamp >= '2024-01-01T00:00:02'", ['u2', 'u3']],
  ['true', ['u1', 'u2', 'u3']],
  ['false', []],
];

/** A property's value, then what toInt and toFloat make of it: only exact JSON numbers convert. */
export const NUMERIC_CASES: readonly (readonly [unknown, number | null, number | null])[] = [
  ['5', 5, 5],
  ['-5', -5, -5],
  ['5.0', null, 5],
  ['5.5', null, 5.5],
  [' 5', null, null],
  ['5 ', null, null],
  ['1e3', null, 1000],
  ['0x10', null, null],
  ['inf', null, null],
  ['nan', null, null],
  ['', null, null],
  ['12abc', null, null],
  ['007', null, null],
  [7, 7, 7],
  [2.5, null, 2.5],
  [null, null, null],
];
