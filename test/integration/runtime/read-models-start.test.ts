import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { npmStartArgs, repoRoot } from '../../support/child';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { TEST_SECRET_KEY } from '../../support/secret-key';
import { tempDir } from '../../support/temp-dir';

const USER = await reachablePgUser();
const schemas = pgSchemas(USER ?? 'postgres', 'rm_start');
afterAll(() => (USER ? schemas.dropAll() : undefined));

/** The built service as `npm start` runs it, to its exit. */
function start(env: Record<string, string>) {
  return spawnSync(process.execPath, npmStartArgs(), {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', PRINT_CREDENTIALS: 'false', DATA_DIR: tempDir('rm-start-'), ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('READ_MODELS and ROLES at start-up', () => {
  it('refuses shared read models over a private log, and a process that folds nothing over private read models: one line, exit 2', () => {
    const shared = start({ READ_MODELS: 'postgres://ops@127.0.0.1:1/test' });
    expect(shared.status).toBe(2);
    expect(shared.stderr.trim().split('\n')).toHaveLength(1);
    expect(shared.stderr).toMatch(/READ_MODELS=.*shared read models need a shared EVENT_LOG/);
    const apiOnly = start({ ROLES: 'api' });
    expect(apiOnly.status).toBe(2);
    expect(apiOnly.stderr).toMatch(/ROLES="api": without `projections`/);
  });

  it.runIf(USER !== null)('given read models on a PostgreSQL out of reach, the start is refused in one line that hides the password', () => {
    const r = start({
      EVENT_LOG: `postgres://${USER}@${PG_HOST}:${PG_PORT}/${PG_DATABASE}?schema=${schemas.fresh()}`,
      READ_MODELS: 'postgres://ops:hunter2@127.0.0.1:1/test',
      SECRET_KEY: TEST_SECRET_KEY,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/READ_MODELS postgres:\/\/ops:\*\*\*@127\.0\.0\.1:1\/test: cannot reach PostgreSQL/);
    expect(r.stderr + r.stdout).not.toContain('hunter2');
  });
});
