import { CLICKHOUSE_TEST_URL, clickhouseReachable, requireClickhouseInCi } from '../../support/clickhouse';
import { analyticsCrashSuite } from './analytics-crash-suite';
import { serverEngine } from './engines';

const up = await clickhouseReachable();
requireClickhouseInCi(up, 'crash');

if (up) analyticsCrashSuite(serverEngine(CLICKHOUSE_TEST_URL));
