import { describe } from 'vitest';
import { postgresExportSource } from '../../../src/adapters/postgres/export-source';
import { PostgresReadModelStore } from '../../../src/adapters/postgres/read-models';
import { postgresForReadModels } from '../read-models/folded-stores';
import { exportSourceContract } from './contract';
import { sqliteEngine } from './sqlite-engine';

const schemas = await postgresForReadModels('export_source');

// Each answer must also equal the SQLite adapter's over the same history, record for record.
describe.runIf(schemas !== null)('PostgreSQL export source', () => {
  exportSourceContract(
    'PostgreSQL',
    async () => {
      const store = await PostgresReadModelStore.open({ connection: schemas!.connection, schema: schemas!.fresh(), maxConnections: 4 });
      return { store, source: postgresExportSource(store), close: () => store.close() };
    },
    sqliteEngine,
  );
});
