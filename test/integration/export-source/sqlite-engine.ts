import { join } from 'node:path';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { sqliteExportSource } from '../../../src/adapters/sqlite/export-source';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { tempDir } from '../../support/temp-dir';
import type { EngineUnderTest } from './contract';

/** A fresh SQLite read-model file and the export source over it (reader threads stay off: small runs). */
export async function sqliteEngine(): Promise<EngineUnderTest> {
  const path = join(tempDir('export-source-'), 'readmodels.sqlite');
  const db = openSqlite(path);
  return {
    store: new SqliteReadModelStore(db),
    source: sqliteExportSource(path),
    close: async () => {
      db.close();
    },
  };
}
