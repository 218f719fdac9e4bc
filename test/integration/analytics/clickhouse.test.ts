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
