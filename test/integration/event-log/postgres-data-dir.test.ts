import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { openRuntime, openRuntimeOn } from '../../../src/app';
import { DataDirError } from '../../../src/store/data-dir';
import { cliArgs, repoRoot } from '../../support/child';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { tempDir } from '../../support/temp-dir';
import { TEST_SECRET_KEY } from '../../support/secret-key';

const USER = await reachablePgUser();

describe('PostgreSQL availability', () => {
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
  });
});

if (USER !== null) {
  const schemas = pgSchemas(USER, 'evdir_test');
  afterAll(() => schemas.dropAll());
  const on = (schema: string) => ({ kind: 'postgres' as const, url: `postgres://${USER}@${PG_HOST}:${PG_PORT}/${PG_DATABASE}`, schema });

  describe('DATA_DIR belongs to one log', () => {
    it('read models of one log are never fed another: SQLite install, other schema, back to SQLite', async () => {
      const sqliteDir = tempDir('dir-sqlite-');
      const embedded = openRuntime({ dataDir: sqliteDir });
      await embedded.close();
      await expect(openRuntimeOn(on(schemas.fresh()), { dataDir: sqliteDir })).rejects.toThrow(/holds an SQLite install/);

      const pgDir = tempDir('dir-pg-');
      const schema = schemas.fresh();
      const first = await openRuntimeOn(on(schema), { dataDir: pgDir });
      await first.close();
      const again = await openRuntimeOn(on(schema), { dataDir: pgDir });
      await again.close();
      const other = openRuntimeOn(on(schemas.fresh()), { dataDir: pgDir });
      await expect(other).rejects.toBeInstanceOf(DataDirError);
      await expect(other).rejects.toThrow(new RegExp(`holds read models of the PostgreSQL log .* schema ${schema}`));
      expect(() => openRuntime({ dataDir: pgDir })).toThrow(/not of an SQLite log/);
    });

    it('the CLI works on the same variable: bootstrap, then keys list, on a PostgreSQL log', () => {
      const dataDir = tempDir('cli-pg-');
      const env = { ...process.env, DATA_DIR: dataDir, SECRET_KEY: TEST_SECRET_KEY, EVENT_LOG: `postgres://${USER}@${PG_HOST}:${PG_PORT}/${PG_DATABASE}?schema=${schemas.fresh()}` };
      const run = (args: string[]) => spawnSync(process.execPath, cliArgs([...args]), { cwd: repoRoot, env, encoding: 'utf8', timeout: 60_000 });
      const boot = run(['bootstrap', '--json']);
      expect(boot.status, boot.stderr).toBe(0);
      expect(JSON.parse(boot.stdout)).toMatchObject({ personal_api_key: expect.any(String) });
      const keys = run(['keys', 'list', '--json']);
      expect(keys.status, keys.stderr).toBe(0);
      // The key bootstrap made, read back through the read models folded from the PostgreSQL log.
      expect(JSON.parse(keys.stdout)).toEqual([expect.objectContaining({ revoked_at: null })]);
    });
  });
}
