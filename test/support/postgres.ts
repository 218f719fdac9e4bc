import pg from 'pg';

/** The local PostgreSQL the integration tests use (trust auth; override with PGHOST/PGPORT). */
export const PG_HOST = process.env.PGHOST ?? '127.0.0.1';
export const PG_PORT = Number(process.env.PGPORT ?? 5432);
export const PG_DATABASE = 'test';

/** The first of the machine's trust-auth users that can connect, or null when the server is down. */
export async function reachablePgUser(): Promise<string | null> {
  for (const user of ['postgres', 'root']) {
    const client = new pg.Client({ host: PG_HOST, port: PG_PORT, user, database: PG_DATABASE, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.end();
      return user;
    } catch {
      await client.end().catch(() => undefined);
    }
  }
  return null;
}
