import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { compileToClickHouse, compileToSqlite, HogQLError, parseHogQL } from '../../../src/exports/hogql/index';
import { clickHouseString } from '../../../src/exports/hogql/binder';
import { quote } from '../../../src/exports/hogql/hogql-print';
import { hostileText } from './arbitraries';
import { createEventsDb, runExport } from './sqlite-fixture';

const text = hostileText;

const db = createEventsDb([]);
afterAll(() => db.close());
const insert = db.prepare(
  "INSERT INTO events (uuid, event, distinct_id, team_id, timestamp, properties, person_properties) VALUES ('r', ?, 'd', 1, 't', ?, '{}')",
);

describe('string literals and property names are bound, never spliced', () => {
  it('the SQL text does not depend on literal values or property names (SQLite)', () => {
    const reference = compileToSqlite("SELECT properties['k'] AS v FROM events WHERE event = 'x' OR event LIKE 'y'");
    fc.assert(
      fc.property(text, text, (key, value) => {
        const compiled = compileToSqlite(
          `SELECT properties[${quote(key, "'")}] AS v FROM events WHERE event = ${quote(value, "'")} OR event LIKE ${quote(value, "'")}`,
        );
        expect(compiled.select).toBe(reference.select);
        expect(compiled.where).toBe(reference.where);
        expect(Object.values(compiled.params)[1]).toBe(value);
      }),
    );
  });

  it('round-trips through a real SQLite database', () => {
    fc.assert(
      fc.property(text, text, (key, value) => {
        db.exec('DELETE FROM events');
        insert.run(value, JSON.stringify({ [key]: value }));
        const k = quote(key, "'");
        const v = quote(value, "'");
        const rows = runExport(db, `SELECT properties[${k}] AS p, ${v} AS lit FROM events WHERE event = ${v} AND properties[${k}] = ${v}`, 1);
        expect(rows).toEqual([{ p: value, lit: value }]);
      }),
      { numRuns: 150 },
    );
  });

  it('the SQL text does not depend on them in ClickHouse parameter mode', () => {
    const options = { parameters: 'query' } as const;
    const reference = compileToClickHouse("SELECT properties['k'] AS v FROM events WHERE event = 'x'", options);
    fc.assert(
      fc.property(text, text, (key, value) => {
        const compiled = compileToClickHouse(`SELECT properties[${quote(key, "'")}] AS v FROM events WHERE event = ${quote(value, "'")}`, options);
        expect(compiled.select).toBe(reference.select);
        expect(compiled.where).toBe(reference.where);
        const jsonKey = JSON.stringify(key).slice(1, -1);
        expect(compiled.params).toEqual({ hogql_p0: jsonKey, hogql_p1: `"${jsonKey}":`, hogql_p2: value });
      }),
    );
  });

  it('ClickHouse literals decode back to the value and never close early', () => {
    fc.assert(
      fc.property(text, (value) => {
        const literal = clickHouseString(value);
        expect(decodeClickHouseString(literal)).toBe(value);
      }),
    );
  });
});

describe('robustness', () => {
  it('any input either parses or fails with HogQLError', () => {
    const vocabulary = fc.constantFrom(
      'SELECT', 'FROM', 'events', 'WHERE', 'AS', 'AND', 'OR', 'NOT', 'IN', 'LIKE', 'ILIKE', 'IS', 'NULL', 'true',
      'event', 'properties', '.', '$browser', "'a'", '"q"', '`b`', '1', '-', '(', ')', ',', '=', '!=', '<', '[', ']',
      'toString', 'coalesce', 'count', 'JOIN', 'UNION', 'GROUP', 'BY', ';', '*', '+', '\\', "'",
    );
    const soup = fc.array(vocabulary, { maxLength: 14 }).map((words) => `SELECT ${words.join(' ')}`);
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), soup), (query) => {
        try {
          parseHogQL(query);
        } catch (error) {
          expect(error).toBeInstanceOf(HogQLError);
        }
      }),
      { numRuns: 500 },
    );
  });
});

/** ClickHouse's reading of a '...' literal (escapes per its lexer); throws on a premature quote. */
function decodeClickHouseString(literal: string): string {
  const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', '0': '\0', b: '\b', f: '\f', '\\': '\\', "'": "'" };
  let out = '';
  for (let i = 1; i < literal.length - 1; i++) {
    const c = literal[i];
    if (c === "'") throw new Error(`unescaped quote at ${i}`);
    if (c === '\\') {
      const next = literal[++i];
      out += simple[next] ?? next;
    } else {
      out += c;
    }
  }
  return out;
}
