import { afterAll, describe, expect, it } from 'vitest';
import { compileToSqlite } from '../../../src/exports/hogql/index';
import { likeToGlob } from '../../../src/exports/hogql/sqlite-dialect';
import { createEventsDb, EVENTS, runExport } from './sqlite-fixture';
import { NUMERIC_CASES, WHERE_CASES } from './where-cases';

const db = createEventsDb(EVENTS);
afterAll(() => db.close());

const run = (query: string, teamId = 1): Record<string, unknown>[] => runExport(db, query, teamId);
const column = (query: string, alias: string, teamId = 1): unknown[] => run(query, teamId).map((row) => row[alias]);

describe('compileToSqlite output', () => {
  it('compiles the example query to parameterised SQL with generated column names', () => {
    const compiled = compileToSqlite(
      "SELECT uuid, event, properties.$browser AS browser, toString(person_id) AS person_id, timestamp FROM events WHERE event = '$pageview'",
    );
    expect(compiled.select).toBe(
      '"uuid" AS hogql_c0, "event" AS hogql_c1, json_extract("properties", @hogql_p0) AS hogql_c2, CAST("person_id" AS TEXT) AS hogql_c3, "timestamp" AS hogql_c4',
    );
    expect(compiled.where).toBe('coalesce(("event" = @hogql_p1), 0)');
    expect(compiled.params).toEqual({ hogql_p0: '$."$browser"', hogql_p1: '$pageview' });
    expect(compiled.columns.map((c) => [c.alias, c.name])).toEqual([
      ['uuid', 'hogql_c0'],
      ['event', 'hogql_c1'],
      ['browser', 'hogql_c2'],
      ['person_id', 'hogql_c3'],
      ['timestamp', 'hogql_c4'],
    ]);
  });

  it('has no WHERE fragment without a WHERE clause', () => {
    expect(compileToSqlite('SELECT event FROM events').where).toBeNull();
  });

  it.each([
    ["SELECT event FROM events WHERE event LIKE 'a%b_c'", 'coalesce(("event" GLOB @hogql_p0), 0)', { hogql_p0: 'a*b?c' }],
    ["SELECT event FROM events WHERE event NOT ILIKE 'A%'", 'coalesce(("event" NOT LIKE @hogql_p0 ESCAPE \'\\\'), 1)', { hogql_p0: 'A%' }],
    ["SELECT event FROM events WHERE event IN ('a', 'b')", 'coalesce(("event" IN (@hogql_p0, @hogql_p1)), 0)', { hogql_p0: 'a', hogql_p1: 'b' }],
    ['SELECT event FROM events WHERE person_id = NULL', '("person_id" IS NULL)', {}],
    ['SELECT event FROM events WHERE person_id = distinct_id', '("person_id" IS "distinct_id")', {}],
    ['SELECT event FROM events WHERE person_id != distinct_id', '("person_id" IS NOT "distinct_id")', {}],
    ['SELECT event FROM events WHERE team_id != 9007199254740993', 'coalesce(("team_id" != @hogql_p0), 1)', { hogql_p0: 9007199254740993n }],
    ["SELECT event FROM events WHERE properties.a.b = 'x'", 'coalesce((json_extract("properties", @hogql_p0) = @hogql_p1), 0)', { hogql_p0: '$."a"."b"', hogql_p1: 'x' }],
  ])('%s', (query, where, params) => {
    const compiled = compileToSqlite(query);
    expect(compiled.where).toBe(where);
    expect(compiled.params).toEqual(params);
  });

  it('turns LIKE patterns into GLOB patterns that keep GLOB metacharacters literal', () => {
    expect(likeToGlob('%a_b%')).toBe('*a?b*');
    expect(likeToGlob('\\%\\_\\\\')).toBe('%_\\');
    expect(likeToGlob('[*?]')).toBe('[[][*][?]]');
    expect(likeToGlob('trailing\\')).toBe('trailing\\');
  });
});

describe('compiled SQL run against SQLite', () => {
  it('selects the example query for one team only', () => {
    expect(
      run(
        "SELECT uuid, event, properties.$browser AS browser, toString(person_id) AS person_id, timestamp FROM events WHERE event = '$pageview'",
      ),
    ).toEqual([
      { uuid: 'u1', event: '$pageview', browser: 'Firefox', person_id: 'p-alice', timestamp: '2024-01-01T00:00:01.000Z' },
      { uuid: 'u3', event: '$pageview', browser: 'chrome mobile', person_id: null, timestamp: '2024-01-01T00:00:03.000Z' },
    ]);
  });

  it('reads nested, derived and person properties', () => {
    expect(
      run('SELECT uuid, properties.nested.deep.k AS k, set, set_once, person_properties.email AS email, person.properties.email AS email2 FROM events'),
    ).toEqual([
      { uuid: 'u1', k: 'v1', set: '{"email":"a@x.io"}', set_once: null, email: 'a@x.io', email2: 'a@x.io' },
      { uuid: 'u2', k: null, set: null, set_once: null, email: null, email2: null },
      { uuid: 'u3', k: null, set: null, set_once: null, email: null, email2: null },
    ]);
  });

  it('reads property names holding quotes, dots, brackets and unicode', () => {
    const row = run(
      "SELECT properties['it\\'s'] AS a, properties.`a.b` AS b, properties['a\"b'] AS c, properties.`ключ` AS d FROM events WHERE uuid = 'u2'",
    )[0];
    expect(row).toEqual({ a: 'quoted', b: 'dotted', c: 'dq', d: 'юникод' });
  });

  it.each(WHERE_CASES)('WHERE %s', (condition, uuids) => {
    expect(column(`SELECT uuid FROM events WHERE ${condition}`, 'uuid')).toEqual(uuids);
  });

  it('applies the whitelisted functions', () => {
    expect(
      run(
        "SELECT toInt(properties.count) AS i, toFloat(properties.count) AS f, toString(properties.count) AS s, lower(properties.$browser) AS l, upper(event) AS u, length(properties.$browser) AS n, coalesce(properties.plan, 'free') AS plan, coalesce(properties.plan) AS same FROM events",
      ),
    ).toEqual([
      { i: 5, f: 5, s: '5', l: 'firefox', u: '$PAGEVIEW', n: 7, plan: 'pro', same: 'pro' },
      { i: 12, f: 12, s: '12', l: 'chrome', u: 'SIGNUP', n: 6, plan: 'free', same: null },
      { i: null, f: null, s: 'many', l: 'chrome mobile', u: '$PAGEVIEW', n: 13, plan: 'free', same: null },
    ]);
  });

  it('converts text to numbers only when it is exactly a number', () => {
    const db2 = createEventsDb(
      NUMERIC_CASES.map(([value], i) => ({
        uuid: `n${String(i).padStart(2, '0')}`,
        event: 'e',
        distinct_id: 'd',
        team_id: 1,
        timestamp: `2024-01-01T00:00:${String(i).padStart(2, '0')}Z`,
        properties: { v: value },
      })),
    );
    const rows = runExport(db2, 'SELECT toInt(properties.v) AS i, toFloat(properties.v) AS f FROM events', 1);
    db2.close();
    expect(rows).toEqual(NUMERIC_CASES.map(([, i, f]) => ({ i, f })));
  });

  it('keeps the SQL linear in the nesting of null-safe comparisons', () => {
    let condition = "event = 'a'";
    for (let i = 0; i < 25; i++) condition = `(${condition}) = (person_id = distinct_id)`;
    const compiled = compileToSqlite(`SELECT event FROM events WHERE ${condition}`);
    expect(compiled.where?.length).toBeLessThan(5_000);
    expect(column(`SELECT uuid FROM events WHERE ${condition}`, 'uuid')).toHaveLength(3);
  });

  it('evaluates booleans in the select list', () => {
    expect(column("SELECT event = '$pageview' AND properties.count > 1 AS flag FROM events", 'flag')).toEqual([1, 0, 0]);
  });
});

describe('injection attempts against SQLite', () => {
  const rowCount = (): number => (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;

  it.each([
    ["SELECT uuid FROM events WHERE event = '\\'; DROP TABLE events; --'", []],
    ["SELECT uuid FROM events WHERE event = 'x'' OR ''1''=''1'", []],
    ["SELECT uuid FROM events WHERE properties['\\'); DROP TABLE events; --'] IS NOT NULL", []],
    ['SELECT uuid FROM events WHERE properties.`") OR 1=1 --` IS NOT NULL', []],
    ["SELECT uuid FROM events WHERE properties['$.secret'] IS NOT NULL", []],
    ["SELECT uuid FROM events WHERE event LIKE '%\\' OR 1=1 --'", []],
    ["SELECT uuid FROM events WHERE event IN ('x\\'); DELETE FROM events; --')", []],
    ["SELECT uuid FROM events WHERE properties['a\\0b'] IS NOT NULL", []],
    ["SELECT uuid FROM events WHERE event = '$pageview\\0' OR event = '\\\\'", []],
  ])('%s', (query, expected) => {
    expect(column(query, 'uuid')).toEqual(expected);
    expect(rowCount()).toBe(EVENTS.length);
  });

  it('keeps hostile aliases out of the SQL text', () => {
    const query = 'SELECT event AS `x" FROM events; DROP TABLE events; --`, uuid AS "hogql_c0" FROM events';
    const compiled = compileToSqlite(query);
    expect(compiled.select).not.toContain('DROP');
    expect(run(query)[0]).toEqual({ 'x" FROM events; DROP TABLE events; --': '$pageview', hogql_c0: 'u1' });
    expect(rowCount()).toBe(EVENTS.length);
  });

  it('keeps a tautology the user writes inside the team filter', () => {
    expect(column("SELECT uuid FROM events WHERE event = '' OR '1' = '1'", 'uuid')).toEqual(['u1', 'u2', 'u3']);
  });

  it('cannot widen the caller team filter by aliasing a column', () => {
    const rows = run("SELECT 2 AS team_id, 'x' AS event, uuid FROM events");
    expect(rows.map((row) => row.uuid)).toEqual(['u1', 'u2', 'u3']);
    expect(rows.every((row) => row.team_id === 2)).toBe(true);
  });

  it('never reads another team through property names', () => {
    expect(column("SELECT properties.secret AS s FROM events WHERE properties.secret = 'team 2 only'", 's')).toEqual([]);
    expect(column("SELECT properties.secret AS s FROM events WHERE properties.secret = 'team 2 only'", 's', 2)).toEqual(['team 2 only']);
  });

  it('matches unicode literals exactly', () => {
    expect(column("SELECT uuid FROM events WHERE properties.`ключ` = 'юникод'", 'uuid')).toEqual(['u2']);
    expect(column("SELECT uuid FROM events WHERE properties.`ключ` = 'ЮНИКОД'", 'uuid')).toEqual([]);
  });
});
