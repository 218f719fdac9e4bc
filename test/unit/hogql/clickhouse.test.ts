import { describe, expect, it } from 'vitest';
import { compileToClickHouse } from '../../../src/exports/hogql/index';
import { clickHouseString } from '../../../src/exports/hogql/binder';

/** The property expression for `key` (a SQL literal or placeholder) and its needle. */
const prop = (object: string, key: string, needle: string): string => {
  const at = `position(${object}, ${needle})`;
  return `multiIf(${at} = 0, NULL, substring(${object}, ${at} + length(${needle}), 1) = '"', visitParamExtractString(${object}, ${key}), nullIf(nullIf(visitParamExtractRaw(${object}, ${key}), ''), 'null'))`;
};
const inlineProp = (object: string, jsonKey: string): string => prop(object, clickHouseString(jsonKey), clickHouseString(`"${jsonKey}":`));

const FLOAT = "'^-?(?:0|[1-9][0-9]*)(?:\\\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$'";
const toFloat = (sql: string): string => `toFloat64OrNull(extract(toString(${sql}), ${FLOAT}))`;

describe('compileToClickHouse (18.16, inline literals)', () => {
  it('compiles the example query', () => {
    const compiled = compileToClickHouse(
      "SELECT uuid, event, properties.$browser AS browser, toString(person_id) AS person_id, timestamp FROM events WHERE event = '$pageview'",
    );
    expect(compiled.select).toBe(
      `uuid AS hogql_c0, event AS hogql_c1, ${inlineProp('properties', '$browser')} AS hogql_c2, toString(person_id) AS hogql_c3, timestamp AS hogql_c4`,
    );
    expect(compiled.where).toBe("coalesce((event = '$pageview'), 0)");
    expect(compiled.params).toEqual({});
    expect(compiled.columns.map((c) => c.alias)).toEqual(['uuid', 'event', 'browser', 'person_id', 'timestamp']);
  });

  it.each([
    ['set', "nullIf(visitParamExtractRaw(properties, '$set'), '')"],
    ['set_once', "nullIf(visitParamExtractRaw(properties, '$set_once'), '')"],
    ['person_properties.email', inlineProp('person_properties', 'email')],
    ['properties.a.b', inlineProp("visitParamExtractRaw(properties, 'a')", 'b')],
    // The key is searched for as JSON.stringify wrote it, then escaped as a ClickHouse literal.
    ["properties['a\"b']", prop('properties', "'a\\\\\"b'", "'\"a\\\\\"b\":'")],
    ["properties['it\\'s']", prop('properties', "'it\\'s'", "'\"it\\'s\":'")],
    ['toInt(event)', "toInt64OrNull(extract(toString(event), '^-?(?:0|[1-9][0-9]*)$'))"],
    ['toFloat(event)', toFloat('event')],
    ['lower(event)', 'lower(toString(event))'],
    ['upper(event)', 'upper(toString(event))'],
    ['length(event)', 'length(toString(event))'],
    ["coalesce(person_id, 'x')", "coalesce(person_id, 'x')"],
    ['012', '12'],
    ['-0.50', '-0.5'],
    ['.5', '0.5'],
    ['99999999999999999999', '100000000000000000000'],
  ])('%s', (expr, sql) => {
    expect(compileToClickHouse(`SELECT ${expr} AS x FROM events`).columns[0].expression).toBe(sql);
  });

  it.each([
    ["event ILIKE 'a%'", "coalesce((lowerUTF8(toString(event)) LIKE lowerUTF8('a%')), 0)"],
    ["event NOT LIKE 'a\\\\%'", "coalesce((toString(event) NOT LIKE 'a\\\\%'), 1)"],
    ['properties.n > 5', `coalesce((${toFloat(inlineProp('properties', 'n'))} > 5), 0)`],
    ['team_id IN (1, 2)', 'coalesce((team_id IN (1, 2)), 0)'],
    ["event NOT IN ('a')", "coalesce((event NOT IN ('a')), 1)"],
    ['person_id IS NOT NULL', 'isNotNull(person_id)'],
    ['NULL = person_id', 'isNull(person_id)'],
    ['person_id = distinct_id', 'has([person_id], distinct_id)'],
    ['person_id != distinct_id', '(NOT has([person_id], distinct_id))'],
    ["NOT (event = 'a' OR true)", "(NOT (coalesce((event = 'a'), 0) OR 1))"],
  ])('WHERE %s', (condition, where) => {
    expect(compileToClickHouse(`SELECT event FROM events WHERE ${condition}`).where).toBe(where);
  });

  it('escapes every character the ClickHouse lexer treats specially', () => {
    expect(clickHouseString("a'b\\c\nd\re\tf\0g\bh\fi")).toBe("'a\\'b\\\\c\\nd\\re\\tf\\0g\\bh\\fi'");
    expect(clickHouseString("'; DROP TABLE events; --")).toBe("'\\'; DROP TABLE events; --'");
    expect(clickHouseString('юникод 🎉')).toBe("'юникод 🎉'");
  });

  it('keeps hostile literals inside one string literal', () => {
    const compiled = compileToClickHouse("SELECT event FROM events WHERE event = '\\'; DROP TABLE events; --'");
    expect(compiled.where).toBe("coalesce((event = '\\'; DROP TABLE events; --'), 0)");
  });

  it('never puts aliases in the SQL', () => {
    const compiled = compileToClickHouse('SELECT 2 AS team_id, event AS `x`` FROM system.tables --` FROM events');
    expect(compiled.select).toBe('2 AS hogql_c0, event AS hogql_c1');
    expect(compiled.columns.map((c) => c.alias)).toEqual(['team_id', 'x` FROM system.tables --']);
  });
});

describe('compileToClickHouse with query parameters (19.x+)', () => {
  it('binds every value as a typed parameter', () => {
    const compiled = compileToClickHouse(
      "SELECT properties.$browser AS b FROM events WHERE event IN ('a', 'b') AND team_id > 3 AND properties.f = 1.5",
      { parameters: 'query' },
    );
    expect(compiled.select).toBe(`${prop('properties', '{hogql_p0:String}', '{hogql_p1:String}')} AS hogql_c0`);
    expect(compiled.where).toBe(
      `((coalesce((event IN ({hogql_p2:String}, {hogql_p3:String})), 0) AND coalesce((team_id > {hogql_p4:Int64}), 0)) AND coalesce((${toFloat(prop('properties', '{hogql_p5:String}', '{hogql_p6:String}'))} = {hogql_p7:Float64}), 0))`,
    );
    expect(compiled.params).toEqual({
      hogql_p0: '$browser',
      hogql_p1: '"$browser":',
      hogql_p2: 'a',
      hogql_p3: 'b',
      hogql_p4: '3',
      hogql_p5: 'f',
      hogql_p6: '"f":',
      hogql_p7: '1.5',
    });
  });
});
