import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClickHouseConnection } from '../../../src/adapters/clickhouse/connection';
import { createAnalyticsTables } from '../../../src/adapters/clickhouse/schema';
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
