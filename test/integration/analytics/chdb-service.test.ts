import { chdbAvailable } from '../../../src/adapters/clickhouse/chdb/module';
import { requireChdbInCi } from '../../support/clickhouse';
import { analyticsServiceSuite } from './analytics-service-suite';
import { chdbEngine } from './engines';

/** The service with ANALYTICS=chdb: ClickHouse's current engine in the service's process. */
const available = await chdbAvailable();
requireChdbInCi(available, 'service');

if (available) analyticsServiceSuite(chdbEngine);
