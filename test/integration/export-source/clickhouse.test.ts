import { ClickHouseClient } from '../../../src/adapters/clickhouse/http-client';
import { CLICKHOUSE_TEST_URL, clickhouseReachable, requireClickhouseInCi } from '../../support/clickhouse';
import { clickhouseSourceChecks } from './clickhouse-checks';
import { clickhouseEngine } from './clickhouse-engine';
import { exportSourceContract } from './contract';
import { sqliteEngine } from './sqlite-engine';

/**
 * The export source on a ClickHouse server (CI's: Debian's 18.16, `bash infra/clickhouse.sh`);
 * every answer must also equal the SQLite source's over the same history, record for record.
 */
const url = CLICKHOUSE_TEST_URL;
const up = await clickhouseReachable();
requireClickhouseInCi(up, 'export source');

if (up) {
  const target = { connect: (database: string) => new ClickHouseClient({ url, database }), admin: new ClickHouseClient({ url }), server: (database: string) => ({ url, database }) };
  exportSourceContract('ClickHouse server', () => clickhouseEngine(target), sqliteEngine);
  clickhouseSourceChecks('ClickHouse server', target);
}
