import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelTypes } from '../../../src/adapters/postgres/read-models/types';
import { compileToPostgres, compileToSqlite } from '../../../src/exports/hogql';
import { columnValue } from '../../../src/exports/worker/records';
import { postgresForReadModels } from '../read-models/folded-stores';
import { createEventsDb, EVENTS, runExport, type FixtureEvent } from '../../unit/hogql/sqlite-fixture';
import { NUMERIC_CASES, WHERE_CASES } from '../../unit/hogql/where-cases';

// The PostgreSQL HogQL dialect against the SQLite one: the same queries over the same fixture rows
// must give the same values (as the export source decodes them).
const schemas = await postgresForReadModels('hogql_pg');

const NUMERIC_EVENTS: FixtureEvent[] = NUMERIC_CASES.map(([value], i) => ({
  uuid: `n${String(i).padStart(2, '0')}`,
  event: 'e',
  distinct_id: 'd',
  team_id: 3,
  timestamp: `2024-01-01T00:01:${String(i).padStart(2, '0')}Z`,
  properties: { v: value },
}));

const QUERIES = [
  "SELECT uuid, event, properties.$browser AS browser, toString(person_id) AS person_id, timestamp FROM events WHERE event = '$pageview'",
  'SELECT uuid, properties.nested.deep.k AS k, set, set_once, person_properties.email AS email, person.properties.email AS email2 FROM events',
  "SELECT properties['it\\'s'] AS a, properties.`a.b` AS b, properties['a\"b'] AS c, properties.`ключ` AS d FROM events WHERE uuid = 'u2'",
  "SELECT toInt(properties.count) AS i, toFloat(properties.count) AS f, toString(properties.count) AS s, lower(properties.$browser) AS l, upper(event) AS u, length(properties.$browser) AS n, coalesce(properties.plan, 'free') AS plan, coalesce(properties.plan) AS same FROM events",
  "SELECT event = '$pageview' AND properties.count > 1 AS flag, properties.count AS c, properties.nested AS o FROM events",
  "SELECT 2 AS team_id, 'x' AS event, uuid FROM events",
  "SELECT uuid FROM events WHERE event = '\\'; DROP TABLE events; --'",
  "SELECT uuid FROM events WHERE properties.`ключ` = 'ЮНИКОД'",
];

describe.runIf(schemas !== null)('HogQL compiled for PostgreSQL', () => {
  const sqlite = createEventsDb([...EVENTS, ...NUMERIC_EVENTS]);
  let client: pg.Client;

  beforeAll(async () => {
    const schema = schemas!.fresh();
    client = new pg.Client({ ...schemas!.connection, types: readModelTypes });
    await client.connect();
    await client.query(`CREATE SCHEMA "${schema}"; SET search_path = "${schema}"`);
    await client.query(`CREATE TABLE events (uuid TEXT COLLATE "C", event TEXT COLLATE "C", distinct_id TEXT COLLATE "C", person_id TEXT COLLATE "C",
      timestamp TEXT COLLATE "C", created_at TEXT COLLATE "C", team_id BIGINT, properties TEXT COLLATE "C", person_properties TEXT COLLATE "C", elements_chain TEXT COLLATE "C")`);
    for (const e of [...EVENTS, ...NUMERIC_EVENTS]) {
      await client.query('INSERT INTO events VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9)', [
        e.uuid, e.event, e.distinct_id, e.person_id ?? null, e.timestamp, e.team_id, JSON.stringify(e.properties), JSON.stringify(e.person_properties ?? {}), e.elements_chain ?? '',
      ]);
    }
  });

  afterAll(async () => {
    await client?.end();
    sqlite.close();
  });

  /** As the export source runs it: the team filter first, then the compiled parameters in text order. */
  async function runOnPostgres(hogql: string, teamId: number): Promise<Record<string, unknown>[]> {
    const compiled = compileToPostgres(hogql);
    const values: unknown[] = [teamId];
    const text = `SELECT ${compiled.select} FROM events WHERE team_id = $1 AND ${compiled.where ?? 'TRUE'} ORDER BY timestamp, uuid`.replace(/@(hogql_p\d+)/g, (_, name: string) => {
      const value = compiled.params[name];
      values.push(typeof value === 'bigint' ? value.toString() : value);
      return `$${values.length}`;
    });
    const rows = (await client.query(text, values)).rows as Record<string, unknown>[];
    const decode = compiled.columns.map(columnValue);
    return rows.map((row) => Object.fromEntries(compiled.columns.map((column, i) => [column.alias, decode[i](row[column.name])])));
  }

  /** The SQLite dialect's answer, decoded as the export source decodes it. */
  function runOnSqlite(hogql: string, teamId: number): Record<string, unknown>[] {
    const decode = compileToSqlite(hogql).columns.map((column) => [column.alias, columnValue(column)] as const);
    return runExport(sqlite, hogql, teamId).map((row) => Object.fromEntries(decode.map(([alias, value]) => [alias, value(row[alias])])));
  }

  it.each(QUERIES)('%s', async (query) => {
    expect(await runOnPostgres(query, 1)).toEqual(runOnSqlite(query, 1));
  });

  it.each(WHERE_CASES)('WHERE %s', async (condition, uuids) => {
    expect((await runOnPostgres(`SELECT uuid FROM events WHERE ${condition}`, 1)).map((r) => r.uuid)).toEqual(uuids);
  });

  it('converts text to numbers only when it is exactly a number', async () => {
    const query = 'SELECT toInt(properties.v) AS i, toFloat(properties.v) AS f FROM events';
    expect(await runOnPostgres(query, 3)).toEqual(runOnSqlite(query, 3));
  });
});
