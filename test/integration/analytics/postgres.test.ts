import { describe } from 'vitest';
import { INGESTION_TABLES } from '../../../projections/ingestion';
import { embeddedAnalytics } from '../../../projections/analytics/embedded';
import { PostgresReadModelStore } from '../../../src/adapters/postgres/read-models';
import { postgresForReadModels } from '../read-models/folded-stores';
import { analyticsContract } from './contract';

const schemas = await postgresForReadModels('analytics');

// The embedded store over the PostgreSQL read models' own events table.
describe.runIf(schemas !== null)('PostgreSQL analytics', () => {
  analyticsContract('embedded, PostgreSQL', async () => {
    const store = await PostgresReadModelStore.open({ connection: schemas!.connection, schema: schemas!.fresh(), maxConnections: 4 });
    await store.transaction((tx) => tx.createTables(INGESTION_TABLES));
    return { analytics: embeddedAnalytics(store), close: () => store.close() };
  });
});
