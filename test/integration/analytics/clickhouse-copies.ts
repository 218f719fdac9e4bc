import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ClickHouseConnection } from '../../../src/adapters/clickhouse/connection';
import { clickhouseDigest } from '../../../src/adapters/clickhouse/digest';
import { newestHoursStart } from '../../../src/adapters/clickhouse/newest-hours';
import { storedPosition } from '../../../src/adapters/clickhouse/position';
import { createAnalyticsTables } from '../../../src/adapters/clickhouse/schema';
import { storedRow } from '../../../src/adapters/clickhouse/sink';
import { clickhouseAnalytics } from '../../../src/adapters/clickhouse/store';
import type { AnalyticsEventRow } from '../../../src/store/analytics';
import type { ClickHouseUnderTest } from './clickhouse-suites';

const HOUR = 3_600_000;
const H0 = Date.parse('2024-05-02T00:00:00.000Z');

/** Five events in each of four hours, minutes 0, 10, … 40; uuids in time order. */
const rows: AnalyticsEventRow[] = Array.from({ length: 20 }, (_, i) => {
  const at = new Date(H0 + Math.floor(i / 5) * HOUR + (i % 5) * 600_000).toISOString();
  return {
    uuid: `01900000-0000-7000-8000-${String(i).padStart(12, '0')}`,
    projectId: 1,
    event: i % 2 === 0 ? '$pageview' : 'signed up',
    distinctId: `d${i % 3}`,
    personId: null,
    timestamp: at,
    receivedAt: at,
    propertiesJson: JSON.stringify({ i }),
    elementsChain: '',
    groups: [null, null, null, null, null],
    historicalMigration: false,
  };
});
const newestFirst = rows.map((r) => r.uuid).reverse();

/**
 * The copies of events ordered by time and by receipt (schema.ts): where the list starts its pages,
 * what it does when the hour counts run high, the fold's position over all tables, filling them in
 * a database from before they existed, and the digest seeing a copy that disagrees.
 */
export function clickhouseCopiesSuite(engine: ClickHouseUnderTest): void {
  const { admin } = engine;
  const withDatabase = async (work: (client: ClickHouseConnection) => Promise<void>) => {
    const database = `chcopies_${randomBytes(6).toString('hex')}`;
    await admin.serverCommand(`CREATE DATABASE ${database}`);
    const client = engine.connect(database);
    try {
      await createAnalyticsTables(client);
      await work(client);
    } finally {
      await client.close?.();
      await admin.serverCommand(`DROP DATABASE ${database}`);
    }
  };
  const listed = async (client: ClickHouseConnection, filters: { limit: number; before?: string; beforeUuid?: string }) =>
    (await clickhouseAnalytics(client).events(1, filters)).map((e) => e.uuid);
  /** Every page, following the (timestamp, uuid) cursor as the events API's next link does. */
  const walk = async (client: ClickHouseConnection, limit: number) => {
    const all: string[] = [];
    let cursor: { before?: string; beforeUuid?: string } = {};
    for (;;) {
      const page = await clickhouseAnalytics(client).events(1, { limit, ...cursor });
      all.push(...page.map((e) => e.uuid));
      if (page.length < limit) return all;
      const last = page[page.length - 1];
      cursor = { before: last.timestamp, beforeUuid: last.uuid };
    }
  };

  describe(`${engine.name} analytics: the events' copies by time and by receipt`, () => {
    it('starts a page at the latest hour whose whole hours up to the cursor hold its rows, the cursor hour not counted', async () => {
      await withDatabase(async (client) => {
        await clickhouseAnalytics(client).sink.append(rows, 3);
        expect(await newestHoursStart(client, 1, null, 5)).toBe(H0 + 3 * HOUR);
        expect(await newestHoursStart(client, 1, null, 6)).toBe(H0 + 2 * HOUR);
        expect(await newestHoursStart(client, 1, null, 20)).toBe(H0);
        expect(await newestHoursStart(client, 1, null, 21)).toBeNull();
        expect(await newestHoursStart(client, 1, H0 + 3 * HOUR + 1_800_000, 5)).toBe(H0 + 2 * HOUR);
        expect(await newestHoursStart(client, 1, H0 + 3 * HOUR, 11)).toBe(H0);
        expect(await newestHoursStart(client, 1, H0 + 3 * HOUR, 16)).toBeNull();
        expect(await newestHoursStart(client, 2, null, 1)).toBeNull();
        expect(await walk(client, 3)).toEqual(newestFirst);
        expect(await walk(client, 5)).toEqual(newestFirst);
      });
    });

    it('reads a page again from the start when the hour counts ran high and the rows from its hour fall short', async () => {
      await withDatabase(async (client) => {
        await clickhouseAnalytics(client).sink.append(rows, 3);
        // As a batch stored twice (a crash before the fold's position moved) counts its hour twice.
        await client.insert('event_hours', [{ project_id: 1, hour: (H0 + 3 * HOUR) / HOUR, n: 100 }]);
        expect(await newestHoursStart(client, 1, null, 7)).toBe(H0 + 3 * HOUR);
        expect(await listed(client, { limit: 7 })).toEqual(newestFirst.slice(0, 7));
        expect(await walk(client, 7)).toEqual(newestFirst);
      });
    });

    it('the fold resumes after the lowest of the tables’ highest positions: a batch one table missed is sent again', async () => {
      await withDatabase(async (client) => {
        const analytics = clickhouseAnalytics(client);
        await analytics.sink.append(rows.slice(0, 10), 3);
        expect(await storedPosition(client)).toBe(3);
        const whole = await clickhouseDigest(client);
        // A crash inside the sink's insert: events and one copy got the batch, the other did not.
        await client.command('DROP TABLE events_by_received_feed');
        await client.insert('events', [storedRow(rows[10], 9)]);
        expect(await storedPosition(client)).toBe(3);
        const torn = await clickhouseDigest(client);
        expect(torn.events).toContain('events_by_received:');
        // Opened again (the view back), the batch sent again reaches every table once.
        await createAnalyticsTables(client);
        await analytics.sink.append(rows.slice(10), 9);
        expect(await storedPosition(client)).toBe(9);
        const again = await clickhouseDigest(client);
        expect(again.events).not.toBe(whole.events);
        expect(await walk(client, 4)).toEqual(newestFirst);
        // As a store that never crashed.
        await withDatabase(async (calm) => {
          await clickhouseAnalytics(calm).sink.append(rows, 9);
          expect(await clickhouseDigest(calm)).toEqual(again);
        });
      });
    });

    it('fills the copies from events in a database from before them, a range of batches at a time; a fill left half done by a crash done again', async () => {
      await withDatabase(async (client) => {
        for (let b = 0; b < 4; b++) await clickhouseAnalytics(client).sink.append(rows.slice(5 * b, 5 * b + 5), 3 + b);
        const expected = await clickhouseDigest(client);
        for (const table of ['events_by_time', 'events_by_received', 'event_hours']) {
          await client.command(`DROP TABLE ${table}_feed`);
          await client.command(`DROP TABLE ${table}`);
        }
        await client.command('CREATE TABLE events_by_time_filling (project_id Int64, uuid String) ENGINE = Memory');
        await client.insert('events_by_time_filling', [{ project_id: 1, uuid: 'half' }]);
        // Two batches (ten rows) per statement: ranges [3, 4] and [5, 6].
        await createAnalyticsTables(client, { fillRows: 7 });
        expect(await client.rows("SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE '%_filling'")).toEqual([]);
        expect(await clickhouseDigest(client)).toEqual(expected);
        expect(await storedPosition(client)).toBe(6);
        expect(await newestHoursStart(client, 1, null, 6)).toBe(H0 + 2 * HOUR);
        expect(await walk(client, 6)).toEqual(newestFirst);
        // The views are back: a later append reaches every copy.
        const late = { ...rows[0], uuid: '01900000-0000-7000-8000-999999999999', timestamp: new Date(H0 + 5 * HOUR).toISOString() };
        await clickhouseAnalytics(client).sink.append([late], 7);
        expect(await storedPosition(client)).toBe(7);
        expect(await listed(client, { limit: 1 })).toEqual([late.uuid]);
        expect((await clickhouseDigest(client)).events).not.toContain('events_by');
      });
    });
  });
}
