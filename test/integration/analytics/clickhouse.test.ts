import { ClickHouseClient } from '../../../src/adapters/clickhouse/http-client';
import { CLICKHOUSE_TEST_URL, clickhouseReachable, requireClickhouseInCi } from '../../support/clickhouse';
import { clickhouseSuites } from './clickhouse-suites';

/**
 * The contract on a ClickHouse server: CI's is Debian's clickhouse-server 18.16
 * (`bash infra/clickhouse.sh`). URL from CLICKHOUSE_TEST_URL, else HOGQL_CLICKHOUSE_URL, else the
 * local default.
 */
const url = CLICKHOUSE_TEST_URL;
const up = await clickhouseReachable();
requireClickhouseInCi(up, 'contract');

if (up) clickhouseSuites({ name: 'ClickHouse server', connect: (database) => new ClickHouseClient({ url, database }), admin: new ClickHouseClient({ url }) });
