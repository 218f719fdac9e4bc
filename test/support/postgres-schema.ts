import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PG_DATABASE, PG_HOST, PG_PORT } from './postgres';

/**
 * Fresh, uniquely named schemas in the test database, so test files (and tests) run in parallel;
 * `dropAll()` removes the ones this file created.
 */
export function pgSchemas(user: string, prefix: string) {
  const created: string[] = [];
  const connection: pg.ClientConfig = { host: PG_HOST, port: PG_PORT, user, database: PG_DATABASE };
  return {
    connection,
    fresh(): string {
      const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
      created.push(schema);
      return schema;
    },
    async dropAll(): Promise<void> {
      if (!created.length) return;
      const admin = new pg.Client(connection);
      await admin.connect();
      try {
        for (const schema of created.splice(0)) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}
