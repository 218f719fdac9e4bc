import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClickHouseConnection } from '../../../src/adapters/clickhouse/connection';
import { createAnalyticsTables } from '../../../src/adapters/clickhouse/schema';
import { clickhouseSink } from '../../../src/adapters/clickhouse/sink';
import { clickhouseAnalytics } from '../../../src/adapters/clickhouse/store';
import { clickhouseCopiesSuite } from './clickhouse-copies';
import { analyticsContract } from './contract';

/** A ClickHouse engine under test: a connection to a database of that name, and one outside any. */
export interface ClickHouseUnderTest {
  name: string;
  connect(database: string): ClickHouseConnection;
  admin: ClickHouseConnection;
}

/** The analytics contract, the copies of events, then the sink's crash case, each test in a database of its own. */
export function clickhouseSuites(engine: ClickHouseUnderTest): void {
  const { admin } = engine;
  clickhouseCopiesSuite(engine);
  describe(`${engine.name} connection`, () => {
    it('answers rows as arrays in the column order, with the values rows gives', async () => {
      const database = `chconn_${randomBytes(6).toString('hex')}`;
      await admin.serverCommand(`CREATE DATABASE ${database}`);
      const client = engine.connect(database);
      try {
        await client.command('CREATE TABLE t (k Int64, s String, n Nullable(String), u UInt8) ENGINE = MergeTree ORDER BY k');
        const tricky = 'tab\there, "quoted", back\\slash, ü, 😀, line\nbreak, {"json": [1]}';
        await client.insert('t', [{ k: 2, s: tricky, n: null, u: 7 }]);
        await client.command(`INSERT INTO t VALUES (-9007199254740993, '', 'x', 0)`);
        const select = 'SELECT s, k, n, u FROM t ORDER BY k';
        const arrays = await client.arrays<[string, string, string | null, number]>(select);
        // 64-bit integers as JSON strings (exact past 2^53), as rows gives them.
        expect(arrays).toEqual([
          ['', '-9007199254740993', 'x', 0],
          [tricky, '2', null, 7],
        ]);
        const rows = await client.rows<{ s: string; k: string; n: string | null; u: number }>(select);
        expect(arrays).toEqual(rows.map((r) => [r.s, r.k, r.n, r.u]));
        expect(await client.arrays('SELECT k FROM t WHERE k > 100')).toEqual([]);
      } finally {
        await admin.serverCommand(`DROP DATABASE IF EXISTS ${database}`);
        await client.close?.();
      }
    });
  });
  describe(`${engine.name} analytics`, () => {
    // A failing contract test never reaches its close(): drop what is left once the file is done.
    const open = new Set<string>();
    afterAll(async () => {
      for (const database of open) await admin.serverCommand(`DROP DATABASE IF EXISTS ${database}`);
    });
    analyticsContract(engine.name, async () => {
      const database = `chstore_${randomBytes(6).toString('hex')}`;
      await admin.serverCommand(`CREATE DATABASE ${database}`);
      open.add(database);
      const client = engine.connect(database);
      await createAnalyticsTables(client);
      const close = async () => {
        await admin.serverCommand(`DROP DATABASE ${database}`);
        await client.close?.();
        open.delete(database);
      };
      return { analytics: clickhouseAnalytics(client), close };
    });
  });

  describe(`${engine.name} sink lookups`, () => {
    it('finds stored uuids by their range when a batch is close together, by its list when spread or not ASCII', async () => {
      const database = `chstore_${randomBytes(6).toString('hex')}`;
      await admin.serverCommand(`CREATE DATABASE ${database}`);
      const real = engine.connect(database);
      const statements: string[] = [];
      // The real connection, its SELECTs noted: which lookup each batch took.
      const client: ClickHouseConnection = {
        database: real.database,
        rows: (sql) => (statements.push(sql), real.rows(sql)),
        arrays: (sql) => real.arrays(sql),
        command: (sql) => real.command(sql),
        insert: (table, rows) => real.insert(table, rows),
        serverCommand: (sql) => real.serverCommand(sql),
      };
      try {
        await createAnalyticsTables(client);
        const sink = clickhouseSink(client);
        const at = '2024-05-02T00:00:00.000Z';
        const row = (uuid: string) => ({
          uuid, projectId: 1, event: 'e', distinctId: 'd', personId: null, timestamp: at, receivedAt: at,
          propertiesJson: `{"u":${JSON.stringify(uuid)}}`, elementsChain: '', groups: [null, null, null, null, null] as const, historicalMigration: false,
        });
        const uuid = (i: number) => `01900000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`;
        await sink.append(Array.from({ length: 40 }, (_, i) => row(uuid(i * 10))), 1);
        const lookups = () => statements.filter((s) => s.includes('event_uuids'));
        // Close together: one stored uuid between them and two of the batch's own, read by range.
        statements.length = 0;
        await sink.append([row(uuid(101)), row(uuid(100)), row(uuid(109))], 2);
        expect(lookups()).toHaveLength(1);
        expect(lookups()[0]).toMatch(/uuid >= '01900000-0000-7000-8000-000000000064' AND uuid <= '01900000-0000-7000-8000-00000000006d'/);
        // Spread over the table: the range holds more than four stored uuids per uuid, so the list is asked.
        statements.length = 0;
        await sink.append([row(uuid(5)), row(uuid(390)), row(uuid(201))], 3);
        expect(lookups()).toHaveLength(2);
        expect(lookups()[1]).toContain('uuid IN (');
        // Not ASCII: ClickHouse's byte order is not JavaScript's, so no range is trusted.
        statements.length = 0;
        await sink.append([row('\u00e9-1'), row('\u{1F600}-1'), row('\uFF5E-1'), row(uuid(0))], 4);
        expect(lookups()).toHaveLength(1);
        expect(lookups()[0]).toContain('uuid IN (');
        await sink.append([row('\u00e9-1'), row('\u{1F600}-1'), row('\uFF5E-1')], 5);
        // Every uuid once, each with its first copy.
        const stored = await real.rows<{ uuid: string; n: string; p: string }>('SELECT uuid, count() AS n, min(_position) AS p FROM events GROUP BY uuid');
        expect(stored).toHaveLength(40 + 2 + 2 + 3);
        expect(stored.every((r) => r.n === '1')).toBe(true);
        expect(stored.find((r) => r.uuid === uuid(100))?.p).toBe('1');
        expect(stored.find((r) => r.uuid === '\u{1F600}-1')?.p).toBe('4');
        // 50,000 stored, then every fifth of them sent again: chunks of 5,000 (two, the last exactly
        // full) whose ranges are dense, each looked up by its list (10,000 uuids in one list would pass
        // the 256 KiB statement limit), and nothing stored twice.
        const spreadUuid = (i: number) => `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
        const spread = Array.from({ length: 50_000 }, (_, i) => row(spreadUuid((i * 7919) % 50_000)));
        await sink.append(spread, 6);
        statements.length = 0;
        await sink.append(spread.filter((_, i) => i % 5 === 0), 7);
        expect(lookups().filter((s) => s.includes('uuid IN ('))).toHaveLength(2);
        const count = await real.rows<{ n: string }>('SELECT count() AS n FROM events');
        expect(count).toEqual([{ n: String(47 + 50_000) }]);
      } finally {
        await real.close?.();
        await admin.serverCommand(`DROP DATABASE ${database}`);
      }
    });
  });

  // A crash between the sink's two inserts (events, then event_uuids) leaves a row the uuid lookup
  // does not know: the batch sent again stores an identical second copy. Reads say FINAL, and the
  // background merge (forced here) keeps one copy without changing any answer.
  describe(`${engine.name} analytics after a crash between the sink's inserts`, () => {
    it('shows the re-stored copy once, before and after OPTIMIZE … FINAL', async () => {
      const database = `chstore_${randomBytes(6).toString('hex')}`;
      await admin.serverCommand(`CREATE DATABASE ${database}`);
      const client = engine.connect(database);
      try {
        await createAnalyticsTables(client);
        const analytics = clickhouseAnalytics(client);
        const at = '2024-05-02T00:00:00.000Z';
        const row = {
          uuid: '01900000-0000-7000-8000-000000000001',
          projectId: 1,
          event: '$feature_flag_called',
          distinctId: 'd',
          personId: 'p',
          timestamp: at,
          receivedAt: at,
          propertiesJson: '{"$feature_flag":"f","$feature_flag_response":"test"}',
          elementsChain: '',
          groups: [null, null, null, null, null] as const,
          historicalMigration: false,
        };
        // What the first insert of the crashed append left behind.
        await client.insert('events', [
          { project_id: 1, uuid: row.uuid, event: row.event, distinct_id: 'd', person_id: 'p', timestamp: Date.parse(at), received_at: Date.parse(at), properties: row.propertiesJson, elements_chain: '', historical_migration: 0, _position: 5 },
        ]);
        await analytics.sink.append([row], 5);
        await analytics.sink.append([{ ...row, propertiesJson: '{"late":1}' }], 6);
        // The leftover reached the copies too (the views on events), and so did the second copy.
        const raw = async () => Number((await client.rows<{ n: string }>('SELECT count() AS n FROM events_by_time'))[0].n);
        expect(await raw()).toBe(2);
        const range = { from: '2024-05-01T00:00:00.000Z', to: null };
        const read = async () => ({
          listed: (await analytics.events(1, { limit: 10 })).map((e) => [e.uuid, e.properties]),
          exposures: await analytics.experiments.exposures(1, 'f', range),
          total: await analytics.experiments.trendCounts(1, '$feature_flag_called', 'f', range, 'total'),
          funnel: await analytics.experiments.funnelRows(1, ['$feature_flag_called'], 'f', range),
        });
        const before = await read();
        expect(before.listed).toEqual([[row.uuid, { $feature_flag: 'f', $feature_flag_response: 'test' }]]);
        expect(before.total).toEqual([{ variant: null, value: 1 }]);
        expect(before.funnel).toHaveLength(1);
        for (const table of ['events', 'events_by_time', 'events_by_received']) await client.command(`OPTIMIZE TABLE ${table} FINAL`);
        expect(await raw()).toBe(1);
        expect(await read()).toEqual(before);
      } finally {
        await client.close?.();
        await admin.serverCommand(`DROP DATABASE ${database}`);
      }
    });
  });
}
