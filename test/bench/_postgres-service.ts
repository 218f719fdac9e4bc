// A service's environment on fresh PostgreSQL schemas (one for the log, one for the read models),
// bootstrapped by the CLI as a shared store must be: a service never bootstraps one on its own.
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { repoRoot } from '../support/child';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../support/postgres';
import { pgSchemas } from '../support/postgres-schema';
import { TEST_SECRET_KEY } from '../support/secret-key';

export interface BenchCredentials {
  project_id: number;
  project_api_key: string;
  personal_api_key: string;
}

export interface PostgresService {
  /** EVENT_LOG, READ_MODELS and SECRET_KEY, to add to the service's environment. */
  env: Record<string, string>;
  credentials: BenchCredentials;
  /** Rows in the read models' analytics table. */
  storedEvents(): Promise<number>;
  drop(): Promise<void>;
}

/** `dataDir`: the bootstrap's DATA_DIR (nothing shared lives there). */
export async function postgresService(prefix: string, dataDir: string): Promise<PostgresService> {
  const user = await reachablePgUser();
  if (!user) throw new Error(`PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`);
  const schemas = pgSchemas(user, prefix);
  const url = (schema: string) => `postgres://${user}@${PG_HOST}:${PG_PORT}/${PG_DATABASE}?schema=${schema}`;
  const readModels = schemas.fresh();
  const env = { EVENT_LOG: url(schemas.fresh()), READ_MODELS: url(readModels), SECRET_KEY: TEST_SECRET_KEY };
  const boot = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'bootstrap', '--json'], {
    cwd: repoRoot,
    env: { ...process.env, ...env, DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (boot.status !== 0) {
    await schemas.dropAll();
    throw new Error(`bootstrap on PostgreSQL exited ${boot.status}: ${boot.stderr}`);
  }
  const credentials = JSON.parse(boot.stdout.trim().split('\n').pop()!) as BenchCredentials;
  return {
    env,
    credentials,
    async storedEvents() {
      const client = new pg.Client(schemas.connection);
      await client.connect();
      try {
        return (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${readModels}".events`)).rows[0].n;
      } finally {
        await client.end();
      }
    },
    drop: () => schemas.dropAll(),
  };
}
