import { afterAll } from 'vitest';
import { ChdbConnection } from '../../../src/adapters/clickhouse/chdb/connection';
import { chdbAvailable } from '../../../src/adapters/clickhouse/chdb/module';
import { requireChdbInCi } from '../../support/clickhouse';
import { tempDir } from '../../support/temp-dir';
import { clickhouseSourceChecks } from './clickhouse-checks';
import { clickhouseEngine } from './clickhouse-engine';
import { exportSourceContract } from './contract';
import { sqliteEngine } from './sqlite-engine';

/**
 * The export source on ClickHouse's current engine in this process (chDB, 26.x): the same adapter
 * and SQL as on the 18.16 server; every answer must also equal the SQLite source's.
 */
const available = await chdbAvailable();
requireChdbInCi(available, 'export source');

if (available) {
  const path = tempDir('chdb-export-');
  const admin = new ChdbConnection(path);
  afterAll(() => admin.close());
  const target = { connect: (database: string) => new ChdbConnection(path, database), admin };
  exportSourceContract('chDB', () => clickhouseEngine(target), sqliteEngine);
  clickhouseSourceChecks('chDB', target);
}
