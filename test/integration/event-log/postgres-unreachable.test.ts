import { afterAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../../src/access';
import { openRuntimeOn } from '../../../src/app';
import { loadConfig } from '../../../src/config';
import { buildApp } from '../../../src/http';
import { capturedInLog } from '../../support/captured';
import { runBuilt } from '../../support/child';
import { json } from '../../support/json';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { tcpProxy } from '../../support/tcp-proxy';
import { tempDir } from '../../support/temp-dir';
import { TEST_SECRET_KEY } from '../../support/secret-key';

const USER = await reachablePgUser();

describe('PostgreSQL availability', () => {
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
  });
});

describe('EVENT_LOG at start-up', () => {
  it('an invalid value is one line on stderr and exit 2, without the URL password', async () => {
    const child = runBuilt({ DATA_DIR: tempDir('pg-bad-'), PORT: '0', SECRET_KEY: TEST_SECRET_KEY, EVENT_LOG: 'postgres://ops:hunter2@127.0.0.1:5432/test?schema=Not-Valid' });
    expect(await child.exited).toBe(2);
    const lines = child.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^invalid configuration: EVENT_LOG=.*schema must be/);
    expect(child.stderr()).not.toContain('hunter2');
  });

  it('a server out of reach is one line and exit 2 (a closed loopback port)', async () => {
    const proxy = await tcpProxy(PG_HOST, PG_PORT);
    await proxy.cut();
    const child = runBuilt({ DATA_DIR: tempDir('pg-down-'), PORT: '0', SECRET_KEY: TEST_SECRET_KEY, EVENT_LOG: `postgres://ops:hunter2@127.0.0.1:${proxy.port}/test` });
    expect(await child.exited).toBe(2);
    expect(child.stderr().trim().split('\n')).toEqual([expect.stringMatching(/^EVENT_LOG postgres:\/\/ops:\*\*\*@127\.0\.0\.1:\d+\/test: cannot reach PostgreSQL/)]);
  });
});

if (USER !== null) {
  const schemas = pgSchemas(USER, 'evdown_test');
  afterAll(() => schemas.dropAll());

  describe('the PostgreSQL log out of reach while serving', () => {
    it('turns writes and /_health into 503 log_unreachable, acknowledges nothing, and recovers when it is back', async () => {
      const proxy = await tcpProxy(PG_HOST, PG_PORT);
      const dataDir = tempDir('pg-unreachable-');
      const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' });
      const runtime = await openRuntimeOn(
        { kind: 'postgres', url: `postgres://${USER}@127.0.0.1:${proxy.port}/${PG_DATABASE}`, schema: schemas.fresh() },
        { dataDir },
      );
      const app = await buildApp(runtime, config, { logger: false });
      try {
        await runtime.runner.catchUp();
        runtime.runner.start();
        const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
        await app.listen({ port: 0, host: '127.0.0.1' });
        const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
        const capture = (distinct_id: string) =>
          fetch(`${url}/capture/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: credentials.project_api_key, event: 'e', distinct_id }) });
        const createFlag = (key: string) =>
          fetch(`${url}/api/projects/${credentials.project_id}/feature_flags/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${credentials.personal_api_key}` },
            body: JSON.stringify({ key }),
          });
        const unreachable = { type: 'server_error', code: 'storage_log_unreachable', detail: expect.any(String), attr: null };

        expect((await capture('before')).status).toBe(200);
        expect((await fetch(`${url}/_health`)).status).toBe(200);

        await proxy.cut();
        const refused = await capture('while-down');
        expect(refused.status).toBe(503);
        expect(await json(refused)).toEqual(unreachable);
        const flag = await createFlag('while-down');
        expect(flag.status).toBe(503);
        expect(await json(flag)).toEqual(unreachable);
        const health = await fetch(`${url}/_health`);
        expect(health.status).toBe(503);
        expect(await json(health)).toMatchObject({ status: 'unavailable', storage: { status: 'fault', reason: 'log_unreachable' }, log_head: null });
        expect(runtime.storage.fault()).toMatchObject({ reason: 'log_unreachable' });
        // Let the projections' live subscription meet the outage: it polls every 100 ms, and nothing
        // else wakes it while no append succeeds (a read that fails must not stop the projections).
        await new Promise((r) => setTimeout(r, 350));

        await proxy.restore();
        expect((await capture('after')).status).toBe(200);
        expect(runtime.storage.fault()).toBeNull();
        expect((await createFlag('after')).status).toBe(201);
        const healthy = await fetch(`${url}/_health`);
        expect(healthy.status).toBe(200);
        expect(await json(healthy)).toMatchObject({ status: 'ok', storage: { status: 'ok' }, failures: {} });
        // The projections rode out the outage: they apply what came after it.
        await runtime.runner.waitFor(await runtime.log.head());
        const ids = (await capturedInLog(runtime.log)).map((e) => e.distinct_id);
        expect(ids).toEqual(['before', 'after']);
        const rows = runtime.stores!.readmodels.prepare("SELECT distinct_id FROM events WHERE event = 'e' ORDER BY distinct_id").all();
        expect(rows).toEqual([{ distinct_id: 'after' }, { distinct_id: 'before' }]);
      } finally {
        await app.close();
        await runtime.close();
        await proxy.close();
      }
    });
  });
}
