import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DestinationError, destinations } from '../../../src/exports/destinations';
import type { PostgresConfig } from '../../../src/exports/destinations';
import { inBatches, makeRecords } from '../../unit/exports-formats/records';
import { closedPort, runContext } from './run-context';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';

const HOST = PG_HOST;
const PORT = PG_PORT;
const DATABASE = PG_DATABASE;


const USER = await reachablePgUser();
const postgres = destinations.Postgres;

describe('PostgreSQL availability', () => {
  // Locally a missing server skips the suite; in CI it must fail, never skip silently.
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${HOST}:${PORT}/${DATABASE} is unreachable`).not.toBeNull();
  });
});

describe.skipIf(USER === null)('Postgres destination', () => {
  let admin: pg.Client;
  let schema: string;

  beforeEach(async () => {
    schema = `export_test_${randomBytes(6).toString('hex')}`;
    admin = new pg.Client({ host: HOST, port: PORT, user: USER!, database: DATABASE });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  });
  afterEach(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  const config = (overrides: Record<string, unknown> = {}) =>
    postgres.configSchema.parse({ user: USER, password: '', host: HOST, port: PORT, database: DATABASE, schema, ...overrides }) as PostgresConfig;

  const rows = async (table = 'events') =>
    (await admin.query(`SELECT * FROM ${schema}.${table} ORDER BY uuid`)).rows as Record<string, unknown>[];

  it('creates the table with PostHog columns and a unique uuid index, and inserts every record', async () => {
    const records = makeRecords(450);
    const result = await postgres.write(config(), runContext(), inBatches(records, 100));
    expect(result.recordsCompleted).toBe(450);

    const columns = await admin.query(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'events' ORDER BY ordinal_position`,
      [schema],
    );
    expect(columns.rows.map((c) => [c.column_name, c.data_type])).toEqual([
      ['uuid', 'text'], ['event', 'text'], ['properties', 'jsonb'], ['elements', 'jsonb'], ['set', 'jsonb'],
      ['set_once', 'jsonb'], ['distinct_id', 'text'], ['team_id', 'integer'], ['ip', 'text'], ['site_url', 'text'],
      ['timestamp', 'timestamp with time zone'],
    ]);
    const unique = await admin.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'events'`, [schema]);
    expect(unique.rows.map((r) => r.indexdef)).toEqual([expect.stringMatching(/CREATE UNIQUE INDEX .* \(uuid\)/)]);

    const stored = await rows();
    expect(stored).toHaveLength(450);
    const r = records[35];
    expect(stored[35]).toEqual({
      uuid: r.uuid,
      event: r.event,
      properties: r.properties,
      elements: r.elements_chain,
      set: r.set,
      set_once: r.set_once,
      distinct_id: r.distinct_id,
      team_id: r.team_id,
      ip: '10.0.0.1',
      site_url: null,
      timestamp: new Date(r.timestamp),
    });
  });

  it('connects by an allowed name through the address the policy checked', async () => {
    const result = await postgres.write(config({ host: 'localhost', table_name: 'by_name' }), runContext(), inBatches(makeRecords(5), 5));
    expect(result.recordsCompleted).toBe(5);
    expect(await rows('by_name')).toHaveLength(5);
  });

  it('leaves no duplicates when a run is executed again', async () => {
    const records = makeRecords(300);
    await postgres.write(config({ table_name: 'again' }), runContext(), inBatches(records.slice(0, 200), 50));
    const ctx = runContext();
    const result = await postgres.write(config({ table_name: 'again' }), ctx, inBatches(records, 70));
    expect(result.recordsCompleted).toBe(300);
    expect(await rows('again')).toHaveLength(300);
    expect(ctx.logs.at(-1)?.message).toContain('200 already present');
  });

  it('adds the unique index to an existing table that lacks one', async () => {
    await admin.query(`CREATE TABLE ${schema}.mine (uuid text, event text, properties jsonb, elements jsonb, set jsonb,
      set_once jsonb, distinct_id text, team_id integer, ip text, site_url text, timestamp timestamptz, note text)`);
    await postgres.write(config({ table_name: 'mine' }), runContext(), inBatches(makeRecords(20), 20));
    await postgres.write(config({ table_name: 'mine' }), runContext(), inBatches(makeRecords(20), 20));
    expect(await rows('mine')).toHaveLength(20);
  });

  it('applies include_events and exclude_events', async () => {
    const records = makeRecords(90, { event: (i) => ['a', 'b', 'c'][i % 3] });
    await postgres.write(config({ table_name: 'inc', include_events: ['a', 'b'], exclude_events: ['b'] }), runContext(), inBatches(records, 40));
    const events = (await rows('inc')).map((r) => r.event);
    expect(events).toHaveLength(30);
    expect(new Set(events)).toEqual(new Set(['a']));

    const result = await postgres.write(config({ table_name: 'exc', exclude_events: ['c'] }), runContext(), inBatches(records, 40));
    expect(result.recordsCompleted).toBe(60);
    expect(new Set((await rows('exc')).map((r) => r.event))).toEqual(new Set(['a', 'b']));
  });

  it('stores text with NUL characters, which PostgreSQL refuses as is', async () => {
    const [r] = makeRecords(1);
    await postgres.write(config(), runContext(), inBatches([{ ...r, event: 'a\u0000b', properties: { v: 'x\u0000y', raw: '\\u0000' } }], 1));
    const [row] = await rows();
    expect(row.event).toBe('ab');
    expect(row.properties).toEqual({ v: 'xy', raw: '\\u0000' });
  });

  it('fails retryably when nothing listens on the port', async () => {
    const error = await postgres.write(config({ port: await closedPort() }), runContext(), inBatches(makeRecords(3), 3)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as DestinationError).retryable).toBe(true);
    // Refused, reset and timed out read the same: a run's error does not tell which ports are open.
    expect((error as Error).message).toMatch(/^Could not connect to PostgreSQL at 127\.0\.0\.1:\d+\/test [^ ]+\.events$/);
  });

  it('fails without retry for a missing database or an unknown user, never naming the user', async () => {
    const missingDb = await postgres.write(config({ database: 'no_such_db_here' }), runContext(), inBatches(makeRecords(3), 3)).catch((e: unknown) => e);
    expect(missingDb).toBeInstanceOf(DestinationError);
    expect((missingDb as DestinationError).retryable).toBe(false);
    expect((missingDb as Error).message).toContain('3D000');

    const badUser = await postgres.write(config({ user: 'no_such_role_xyz' }), runContext(), inBatches(makeRecords(3), 3)).catch((e: unknown) => e);
    expect(badUser).toBeInstanceOf(DestinationError);
    expect((badUser as DestinationError).retryable).toBe(false);
    expect((badUser as Error).message).toContain('28000');
    expect((badUser as Error).message).not.toContain('no_such_role_xyz');
  });

  it('fails without retry when the schema does not exist', async () => {
    const error = await postgres.write(config({ schema: 'no_such_schema_here' }), runContext(), inBatches(makeRecords(3), 3)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as DestinationError).retryable).toBe(false);
  });
});
