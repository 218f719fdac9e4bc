import { CLICKHOUSE_TEST_URL, clickhouseReachable, requireClickhouseInCi } from '../../support/clickhouse';
import { analyticsServiceSuite } from './analytics-service-suite';
import { serverEngine } from './engines';

/** The service with CLICKHOUSE_URL: CI's server is Debian's 18.16 (`bash infra/clickhouse.sh`). */
const up = await clickhouseReachable();
requireClickhouseInCi(up, 'service');

if (up) analyticsServiceSuite(serverEngine(CLICKHOUSE_TEST_URL));
