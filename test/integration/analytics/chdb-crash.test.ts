import { chdbAvailable } from '../../../src/adapters/clickhouse/chdb/module';
import { requireChdbInCi } from '../../support/clickhouse';
import { analyticsCrashSuite } from './analytics-crash-suite';
import { chdbEngine } from './engines';

/** chDB's files after a SIGKILL of the process holding them: opened again, nothing twice, nothing missing. */
const available = await chdbAvailable();
requireChdbInCi(available, 'crash');

if (available) analyticsCrashSuite(chdbEngine);
