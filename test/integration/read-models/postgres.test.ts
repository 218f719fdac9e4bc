import { afterAll, describe, expect, it } from 'vitest';
import { PostgresReadModelStore } from '../../../src/adapters/postgres/read-models';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { readModelContract } from './contract';

const USER = await reachablePgUser();

describe('PostgreSQL availability', () => {
  // Locally a missing server skips the suite; in CI it must fail, never skip silently.
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
  });
});

if (USER !== null) {
  const schemas = pgSchemas(USER, 'rm_test');
  afterAll(() => schemas.dropAll());
  readModelContract('PostgreSQL', async () => {
    const schema = schemas.fresh();
    const open = () => PostgresReadModelStore.open({ connection: schemas.connection, schema });
    return { store: await open(), reopen: open };
  });
}
