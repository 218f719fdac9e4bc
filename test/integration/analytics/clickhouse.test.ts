import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ClickHouseClient } from '../../../src/adapters/clickhouse/http-client';
import { createAnalyticsTables } from '../../../src/adapters/clickhouse/schema';
import { clickhouseAnalytics } from '../../../src/adapters/clickhouse/store';
import { analyticsContract } from './contract';

/**
 * The contract on a ClickHouse server: CI's is Debian's clickhouse-server 18.16
 * (`bash infra/clickhouse.sh`). URL from CLICKHOUSE_TEST_URL, else HOGQL_CLICKHOUSE_URL, else the
 * local default. Each test gets a database of its own, dropped after it.
 */
const url = process.env.CLICKHOUSE_TEST_URL ?? process.env.HOGQL_CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';

async function reachable(): Promise<boolean> {
  try {
    const response = await fetch(`${url}/?query=${encodeURIComponent('SELECT 1')}`, { signal: AbortSignal.timeout(3000) });
    return response.ok;
  } catch {
    return false;
  }
}

const up = await reachable();

// CI starts ClickHouse: there a missing server is a failure, not a skip.
describe('ClickHouse availability', () => {
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(up, `ClickHouse at ${url} is unreachable (bash infra/clickhouse.sh)`).toBe(true);
  });
});

describe.runIf(up)('ClickHouse analytics', () => {
  analyticsContract('ClickHouse server', async () => {
    const database = `chstore_${randomBytes(6).toString('hex')}`;
    const admin = new ClickHouseClient({ url });
    await admin.serverCommand(`CREATE DATABASE ${database}`);
    const client = new ClickHouseClient({ url, database });
    await createAnalyticsTables(client);
    return { analytics: clickhouseAnalytics(client), close: async () => void (await admin.serverCommand(`DROP DATABASE ${database}`)) };
  });
});

// ClickHouse merges parts in the background; a forced final merge must not change any answer
// (the copy a merge keeps is the one reads choose).
describe.runIf(up)('ClickHouse analytics after merges', () => {
  it('answers alike before and after OPTIMIZE … FINAL, first copies kept', async () => {
    const database = `chstore_${randomBytes(6).toString('hex')}`;
    const admin = new ClickHouseClient({ url });
    await admin.serverCommand(`CREATE DATABASE ${database}`);
    try {
      const client = new ClickHouseClient({ url, database });
      await createAnalyticsTables(client);
      const analytics = clickhouseAnalytics(client);
      const at = '2024-05-02T00:00:00.000Z';
      const first = { uuid: '01900000-0000-7000-8000-000000000001', projectId: 1, event: 'x', distinctId: 'd', personId: 'p', timestamp: at, receivedAt: at, propertiesJson: '{"v":1}', elementsChain: '', groups: [null, null, null, null, null] as const, historicalMigration: false };
      await analytics.sink.append([first], 5);
      await analytics.sink.append([{ ...first, propertiesJson: '{"v":2}' }], 6);
      await analytics.sink.append([first], 5);
      await analytics.persons.map([{ projectId: 1, distinctId: 'd', personId: 'q', version: 2 }]);
      await analytics.persons.map([{ projectId: 1, distinctId: 'd', personId: 'p', version: 1 }]);
      const read = async () => ({
        listed: await analytics.events(1, { limit: 10 }),
        byPerson: await analytics.events(1, { limit: 10, personId: 'q' }),
      });
      const before = await read();
      expect(before.listed.map((e) => e.properties)).toEqual([{ v: 1 }]);
      expect(before.byPerson).toHaveLength(1);
      await client.command('OPTIMIZE TABLE events FINAL');
      await client.command('OPTIMIZE TABLE person_distinct_ids FINAL');
      const stored = await client.rows<{ n: string }>('SELECT count() AS n FROM events');
      expect(Number(stored[0].n)).toBe(1);
      expect(await read()).toEqual(before);
    } finally {
      await admin.serverCommand(`DROP DATABASE ${database}`);
    }
  });
});
