import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { compileToSqlite } from '../../../src/exports/hogql/index';

export interface FixtureEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  team_id: number;
  timestamp: string;
  properties: Record<string, unknown>;
  person_properties?: Record<string, unknown>;
  person_id?: string;
  elements_chain?: string;
}

/** Columns as the embedded analytics store keeps them (JSON as TEXT, times as ISO text). */
export function createEventsDb(events: readonly FixtureEvent[]): SqliteDatabase {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE events (
    uuid TEXT, event TEXT, distinct_id TEXT, person_id TEXT, timestamp TEXT, created_at TEXT,
    team_id INTEGER, properties TEXT, person_properties TEXT, elements_chain TEXT
  )`);
  const insert = db.prepare(
    `INSERT INTO events VALUES (@uuid, @event, @distinct_id, @person_id, @timestamp, @created_at, @team_id,
       @properties, @person_properties, @elements_chain)`,
  );
  for (const e of events) {
    insert.run({
      uuid: e.uuid,
      event: e.event,
      distinct_id: e.distinct_id,
      person_id: e.person_id ?? null,
      timestamp: e.timestamp,
      created_at: e.timestamp,
      team_id: e.team_id,
      properties: JSON.stringify(e.properties),
      person_properties: JSON.stringify(e.person_properties ?? {}),
      elements_chain: e.elements_chain ?? '',
    });
  }
  return db;
}

/**
 * Runs a query the way an export worker would: the compiled fragments embedded between the
 * caller's own team filter (a positional parameter) and ORDER BY. Rows come back keyed by alias.
 */
export function runExport(db: SqliteDatabase, hogql: string, teamId: number): Record<string, unknown>[] {
  const compiled = compileToSqlite(hogql);
  const sql = `SELECT ${compiled.select} FROM events WHERE team_id = ? AND ${compiled.where ?? '1'} ORDER BY timestamp, uuid`;
  const rows = db.prepare(sql).all(teamId, compiled.params) as Record<string, unknown>[];
  return rows.map((row) => Object.fromEntries(compiled.columns.map((column) => [column.alias, row[column.name]])));
}

export const EVENTS: readonly FixtureEvent[] = [
  {
    uuid: 'u1',
    event: '$pageview',
    distinct_id: 'alice',
    team_id: 1,
    timestamp: '2024-01-01T00:00:01.000Z',
    person_id: 'p-alice',
    properties: { $browser: 'Firefox', count: 5, plan: 'pro', $set: { email: 'a@x.io' }, nested: { deep: { k: 'v1' } } },
    person_properties: { email: 'a@x.io' },
  },
  {
    uuid: 'u2',
    event: 'signup',
    distinct_id: 'bob',
    team_id: 1,
    timestamp: '2024-01-01T00:00:02.000Z',
    person_id: 'p-bob',
    properties: { $browser: 'Chrome', count: '12', "it's": 'quoted', 'a.b': 'dotted', 'a"b': 'dq', ключ: 'юникод' },
  },
  {
    uuid: 'u3',
    event: '$pageview',
    distinct_id: 'carol',
    team_id: 1,
    timestamp: '2024-01-01T00:00:03.000Z',
    properties: { $browser: 'chrome mobile', count: 'many', plan: null, path: '/a%b_c' },
  },
  {
    uuid: 'u4',
    event: '$pageview',
    distinct_id: 'mallory',
    team_id: 2,
    timestamp: '2024-01-01T00:00:04.000Z',
    properties: { $browser: 'Firefox', count: 5, secret: 'team 2 only' },
  },
];
