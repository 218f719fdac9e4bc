import { describe, expect, it } from 'vitest';
import { deriveSchema, parseHogQL, printQuery } from '../../../src/exports/hogql/index';

const BRIEF_QUERY =
  "SELECT uuid, event, properties.$browser AS browser, toString(person_id) AS person_id, timestamp FROM events WHERE event = '$pageview'";

describe('accepted queries', () => {
  it('resolves the example query of PostHog batch exports', () => {
    const query = parseHogQL(BRIEF_QUERY);
    expect(query.columns).toEqual([
      { alias: 'uuid', expr: { kind: 'field', name: 'uuid' } },
      { alias: 'event', expr: { kind: 'field', name: 'event' } },
      { alias: 'browser', expr: { kind: 'property', source: 'properties', path: ['$browser'] } },
      {
        alias: 'person_id',
        expr: { kind: 'call', name: 'toString', args: [{ kind: 'field', name: 'person_id' }], pos: 52 },
      },
      { alias: 'timestamp', expr: { kind: 'field', name: 'timestamp' } },
    ]);
    expect(query.where).toEqual({
      kind: 'compare',
      op: '=',
      left: { kind: 'field', name: 'event' },
      right: { kind: 'string', value: '$pageview' },
    });
  });

  it.each([
    // Keywords are case-insensitive; the canonical form is upper-case with single spaces.
    ['select event as e from events where event = \'a\'', "SELECT event AS e FROM events WHERE event = 'a'"],
    ['SELECT\n  event\nFROM events;', 'SELECT event FROM events'],
    ['SELECT event FROM events ;', 'SELECT event FROM events'],
    // Every exported field.
    [
      'SELECT uuid, event, properties, distinct_id, team_id, timestamp, created_at, person_id, person_properties, set, set_once, elements_chain FROM events',
      'SELECT uuid, event, properties, distinct_id, team_id, timestamp, created_at, person_id, person_properties, set, set_once, elements_chain FROM events',
    ],
    // Property paths: dotted, bracketed, quoted, nested, `$` names, keywords after a dot.
    ["SELECT properties['a b'] AS ab FROM events", 'SELECT properties.`a b` AS ab FROM events'],
    ['SELECT properties."a.b" AS ab FROM events', 'SELECT properties.`a.b` AS ab FROM events'],
    ['SELECT properties.`it\\\'s` AS q FROM events', "SELECT properties.`it's` AS q FROM events"],
    ['SELECT properties.nested.deep.k AS k FROM events', 'SELECT properties.nested.deep.k AS k FROM events'],
    ['SELECT properties.select AS s FROM events', 'SELECT properties.select AS s FROM events'],
    ['SELECT properties.union AS u FROM events', 'SELECT properties.union AS u FROM events'],
    ['SELECT person_properties.email AS email FROM events', 'SELECT person_properties.email AS email FROM events'],
    ['SELECT person.properties.email AS email FROM events', 'SELECT person.properties.email AS email FROM events'],
    ['SELECT events.event, e.uuid FROM events AS e', 'SELECT events.event, e.uuid FROM events AS e'],
    ['SELECT e.uuid FROM events e', 'SELECT e.uuid FROM events AS e'],
    // Literals and functions; function names are case-insensitive.
    ["SELECT 'it''s' AS s, -1.5 AS n, true AS t, NULL AS z FROM events", "SELECT 'it\\'s' AS s, -1.5 AS n, true AS t, NULL AS z FROM events"],
    ['SELECT TOSTRING(team_id) AS t FROM events', 'SELECT TOSTRING(team_id) AS t FROM events'],
    [
      "SELECT coalesce(properties.a, properties.b, 'x') AS c, lower(event) AS l, upper(event) AS u, length(event) AS n, toInt(properties.n) AS i, toFloat(properties.f) AS f FROM events",
      "SELECT coalesce(properties.a, properties.b, 'x') AS c, lower(event) AS l, upper(event) AS u, length(event) AS n, toInt(properties.n) AS i, toFloat(properties.f) AS f FROM events",
    ],
    // Conditions: precedence and the parentheses it needs.
    [
      "SELECT event FROM events WHERE event = 'a' OR event = 'b' AND NOT team_id > 1",
      "SELECT event FROM events WHERE event = 'a' OR event = 'b' AND NOT team_id > 1",
    ],
    [
      "SELECT event FROM events WHERE (event = 'a' OR event = 'b') AND (team_id >= 1)",
      "SELECT event FROM events WHERE (event = 'a' OR event = 'b') AND team_id >= 1",
    ],
    [
      "SELECT event FROM events WHERE event IN ('a', 'b') AND event NOT IN ('c') AND team_id IN (1, 2)",
      "SELECT event FROM events WHERE event IN ('a', 'b') AND event NOT IN ('c') AND team_id IN (1, 2)",
    ],
    [
      "SELECT event FROM events WHERE event LIKE '%view' AND event NOT ILIKE 'X%' AND person_id IS NOT NULL AND properties.x IS NULL",
      "SELECT event FROM events WHERE event LIKE '%view' AND event NOT ILIKE 'X%' AND person_id IS NOT NULL AND properties.x IS NULL",
    ],
    ['SELECT event FROM events WHERE event == \'a\' AND event <> \'b\'', "SELECT event FROM events WHERE event = 'a' AND event != 'b'"],
    ['SELECT event FROM events WHERE NOT (NOT (event = \'a\'))', "SELECT event FROM events WHERE NOT NOT event = 'a'"],
    ["SELECT event = 'a' AS is_a FROM events", "SELECT event = 'a' AS is_a FROM events"],
    ['SELECT event AS `select` FROM events', 'SELECT event AS `select` FROM events'],
    ['SELECT event AS "my event" FROM events', 'SELECT event AS `my event` FROM events'],
  ])('%s', (query, canonical) => {
    const parsed = parseHogQL(query);
    expect(printQuery(parsed.parsed)).toBe(canonical);
    // The canonical text is itself accepted and prints the same.
    expect(printQuery(parseHogQL(canonical).parsed)).toBe(canonical);
  });

  it('resolves every way of naming a property to a path', () => {
    const paths = parseHogQL(
      "SELECT properties['a b'] AS a, properties.`a.b` AS b, person.properties.email AS c, properties.x['y'].z AS d, e.properties.$os AS f FROM events e",
    ).columns.map((column) => column.expr);
    expect(paths).toEqual([
      { kind: 'property', source: 'properties', path: ['a b'] },
      { kind: 'property', source: 'properties', path: ['a.b'] },
      { kind: 'property', source: 'person_properties', path: ['email'] },
      { kind: 'property', source: 'properties', path: ['x', 'y', 'z'] },
      { kind: 'property', source: 'properties', path: ['$os'] },
    ]);
  });
});

describe('deriveSchema', () => {
  it('matches PostHog for its own test query (test_create.py)', () => {
    const query = `
SELECT
  event,
  team_id AS my_team,
  properties,
  properties.$browser AS browser,
  properties.custom AS custom,
  person_id
FROM events
`;
    const property = (n: number): string =>
      `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.properties, %(hogql_val_${n})s), ''), 'null'), '^"|"$', '')`;
    expect(deriveSchema(query)).toEqual({
      fields: [
        { expression: 'events.event', alias: 'event' },
        { expression: 'events.team_id', alias: 'my_team' },
        { expression: 'events.properties', alias: 'properties' },
        { expression: property(0), alias: 'browser' },
        { expression: property(1), alias: 'custom' },
        { expression: 'events.person_id', alias: 'person_id' },
      ],
      values: { hogql_val_0: '$browser', hogql_val_1: 'custom' },
      hogql_query: query.split(/\s+/).filter(Boolean).join(' '),
    });
  });

  it.each([
    // PostHog's bare-constant cases (test_serializers.py).
    ['SELECT 1 FROM events', '1', '`1`', {}],
    ["SELECT 'hello' FROM events", '%(hogql_val_0)s', 'hello', { hogql_val_0: 'hello' }],
    ['SELECT 3.14 FROM events', '3.14', '`3.14`', {}],
    ['SELECT null FROM events', 'NULL', 'NULL', {}],
    ['SELECT true FROM events', '1', '`1`', {}],
  ])('names the bare constant in %s like PostHog', (query, expression, alias, values) => {
    const schema = deriveSchema(query);
    expect(schema.fields).toEqual([{ expression, alias }]);
    expect(schema.values).toEqual(values);
  });

  it('prints functions and conditions in PostHog ClickHouse form, WHERE values excluded', () => {
    const schema = deriveSchema(
      "SELECT toString(person_id) AS p, toInt(properties.n) AS n, event IN ('a', 'b') AND event NOT LIKE 'x%' AS c FROM events WHERE event = 'secret'",
    );
    expect(schema.fields).toEqual([
      { expression: 'toString(events.person_id)', alias: 'p' },
      {
        expression:
          "accurateCastOrNull(replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.properties, %(hogql_val_0)s), ''), 'null'), '^\"|\"$', ''), %(hogql_val_1)s)",
        alias: 'n',
      },
      {
        expression: 'and(in(events.event, tuple(%(hogql_val_2)s, %(hogql_val_3)s)), notLike(events.event, %(hogql_val_4)s))',
        alias: 'c',
      },
    ]);
    expect(schema.values).toEqual({ hogql_val_0: 'n', hogql_val_1: 'Int64', hogql_val_2: 'a', hogql_val_3: 'b', hogql_val_4: 'x%' });
    expect(schema.hogql_query).toBe(
      "SELECT toString(person_id) AS p, toInt(properties.n) AS n, event IN ('a', 'b') AND event NOT LIKE 'x%' AS c FROM events WHERE event = 'secret'",
    );
  });

  it('names an unaliased expression by its printed form, numbering placeholders across columns', () => {
    const schema = deriveSchema('SELECT properties.a, properties.b FROM events');
    expect(schema.fields.map((field) => field.alias)).toEqual(schema.fields.map((field) => field.expression));
    expect(schema.fields[1].alias).toContain('%(hogql_val_1)s');
  });

  it('accepts an already parsed query', () => {
    expect(deriveSchema(parseHogQL(BRIEF_QUERY))).toEqual(deriveSchema(BRIEF_QUERY));
  });
});
