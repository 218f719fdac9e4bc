import { describe, expect, it } from 'vitest';

/**
 * The ClickHouse server the analytics suites use: CI's is Debian's clickhouse-server 18.16
 * (`bash infra/clickhouse.sh`). CLICKHOUSE_TEST_URL, else HOGQL_CLICKHOUSE_URL, else the local default.
 */
export const CLICKHOUSE_TEST_URL = process.env.CLICKHOUSE_TEST_URL ?? process.env.HOGQL_CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';

/** Whether the server answers `SELECT 1` within 3 s. */
export async function clickhouseReachable(url = CLICKHOUSE_TEST_URL): Promise<boolean> {
  try {
    const response = await fetch(`${url}/?query=${encodeURIComponent('SELECT 1')}`, { signal: AbortSignal.timeout(3000) });
    return response.ok;
  } catch {
    return false;
  }
}

/** CI starts ClickHouse: there a missing server is a failing test, not a skipped suite. */
export function requireClickhouseInCi(up: boolean, suite: string): void {
  describe(`ClickHouse availability (${suite})`, () => {
    it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
      expect(up, `ClickHouse at ${CLICKHOUSE_TEST_URL} is unreachable (bash infra/clickhouse.sh)`).toBe(true);
    });
  });
}

/** CI installs chDB (`bash infra/chdb.sh`): there a missing package is a failing test, not a skipped suite. */
export function requireChdbInCi(available: boolean, suite: string): void {
  describe(`chDB availability (${suite})`, () => {
    it.runIf(process.env.CI === 'true')('is installed in CI', () => {
      expect(available, 'the chdb package is not installed (bash infra/chdb.sh)').toBe(true);
    });
  });
}
