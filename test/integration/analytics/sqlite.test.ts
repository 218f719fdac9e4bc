import { join } from 'node:path';
import { INGESTION_TABLES } from '../../../projections/ingestion';
import { embeddedAnalytics } from '../../../projections/analytics/embedded';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { tempDir } from '../../support/temp-dir';
import { analyticsContract } from './contract';

// The embedded store over the SQLite read models' own events table.
analyticsContract('embedded, SQLite', async () => {
  const db = openSqlite(join(tempDir('analytics-'), 'readmodels.sqlite'));
  const store = new SqliteReadModelStore(db);
  await store.transaction((tx) => tx.createTables(INGESTION_TABLES));
  return { analytics: embeddedAnalytics(store), close: async () => void db.close() };
});
