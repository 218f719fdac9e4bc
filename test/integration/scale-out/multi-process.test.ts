import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { PostHog } from 'posthog-node';
import { afterAll, describe, expect, it } from 'vitest';
import { cliArgs, kill9, repoRoot, runBuilt } from '../../support/child';
import { eventually } from '../../support/eventually';
import { json } from '../../support/json';
import { listedOnceAllArrived } from '../../support/listed-events';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { TEST_SECRET_KEY } from '../../support/secret-key';
import { tempDir } from '../../support/temp-dir';

const USER = await reachablePgUser();

describe('PostgreSQL availability', () => {
  // Locally a missing server skips the suite; in CI it must fail, never skip silently.
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
  });
});

const pgUrl = (schema: string) => `postgres://${USER}@${PG_HOST}:${PG_PORT}/${PG_DATABASE}?schema=${schema}`;

interface Credentials {
  project_id: number;
  project_api_key: string;
  personal_api_key: string;
}


if (USER !== null) {
  const schemas = pgSchemas(USER, 'scaleout_test');
  afterAll(() => schemas.dropAll());

  describe('several processes on one PostgreSQL store (ROLES, READ_MODELS)', () => {
    it('two api processes and a projections,exports process taken over after SIGKILL serve one consistent store', async () => {
      const readModelsSchema = schemas.fresh();
      const shared = {
        EVENT_LOG: pgUrl(schemas.fresh()),
        READ_MODELS: pgUrl(readModelsSchema),
        SECRET_KEY: TEST_SECRET_KEY,
        PRINT_CREDENTIALS: 'false',
        LOG_LEVEL: 'info',
        PORT: '0',
        PROJECTIONS_NICE: '0',
      };
      // Every process has its own, empty DATA_DIR: nothing they share lives there.
      const cli = (args: string[]) => {
        const r = spawnSync(process.execPath, cliArgs([...args]), {
          cwd: repoRoot,
          env: { ...process.env, ...shared, DATA_DIR: tempDir('scaleout-cli-') },
          encoding: 'utf8',
          timeout: 120_000,
        });
        return { code: r.status, stdout: r.stdout, stderr: r.stderr };
      };
      // A shared store is bootstrapped once, explicitly (no process does it on its own).
      const boot = cli(['bootstrap', '--json']);
      expect(boot.code, boot.stderr).toBe(0);
      const credentials = JSON.parse(boot.stdout.trim().split('\n').pop()!) as Credentials;

      const start = (roles: string) => runBuilt({ ...shared, ROLES: roles, DATA_DIR: tempDir('scaleout-') });
      const tookLease = (l: string) => l.includes('"lease":"projections"') && l.includes('took the lease');
      const folder = start('projections,exports');
      const all = [folder];
      try {
        await folder.waitForLine(tookLease, 60_000);
        // Started once the first holds the lease: this one waits for it.
        const standby = start('projections,exports');
        const apis = [start('api'), start('api')];
        all.push(standby, ...apis);
        const urls = await Promise.all(apis.map(async (p) => /listening at (http:\/\/[^"\s]+)/.exec(await p.waitForLine((l) => l.includes('Server listening'), 60_000))![1]));
        const api = (i: number, path: string, init: RequestInit = {}) =>
          fetch(urls[i % 2] + path, { ...init, headers: { authorization: `Bearer ${credentials.personal_api_key}`, 'content-type': 'application/json', ...init.headers } });
        const base = `/api/projects/${credentials.project_id}`;
        // No organization was created by any process: the CLI's is the only one.
        const admin = new pg.Client({ ...schemas.connection, options: `-c search_path=${readModelsSchema}` });
        await admin.connect();
        const orgs = (await admin.query('SELECT count(*)::int AS n FROM organizations')).rows[0].n as number;
        await admin.end();
        expect(orgs).toBe(1);

        const clients = urls.map((host) => new PostHog(credentials.project_api_key, { host, flushAt: 20, flushInterval: 0, fetchRetryCount: 0 }));
        const acked: string[] = [];
        const send = async (round: number) => {
          const uuids = Array.from({ length: 50 }, () => randomUUID());
          const batch = uuids.map((uuid, i) => ({ event: 'mp', uuid, distinct_id: `user-${round}-${i % 5}`, properties: { round } }));
          const res = await fetch(`${urls[round % 2]}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: credentials.project_api_key, batch }) });
          if (res.status === 200) acked.push(...uuids);
        };
        const round = async (r: number) => {
          const client = clients[r % 2];
          client.identify({ distinctId: `person-${r}`, properties: { $set: { plan: r % 3 === 0 ? 'pro' : 'free' }, $anon_distinct_id: `anon-${r}` } });
          client.alias({ distinctId: `person-${r}`, alias: `crm-${r}` });
          client.groupIdentify({ groupType: 'company', groupKey: `co-${r % 4}`, properties: { size: r } });
          await client.flush();
          await send(r);
          const flags = await clients[(r + 1) % 2].getAllFlags(`person-${r}`);
          expect(flags).toBeTypeOf('object');
        };
        for (let r = 0; r < 6; r++) await round(r);

        // The folding process dies mid-way; the standby takes the lease and carries on.
        kill9(folder.child);
        await folder.exited;
        const killedAt = Date.now();
        for (let r = 6; r < 12; r++) await round(r);
        await standby.waitForLine(tookLease, 30_000);
        // The export scheduler and worker moved with it.
        await standby.waitForLine((l) => l.includes('"lease":"exports"') && l.includes('took the lease'), 30_000);
        expect(Date.now() - killedAt).toBeLessThan(15_000);
        await Promise.all(clients.map((c) => c.shutdown()));

        // A flag created through one api process is served by the other within a second.
        const created = await api(0, `${base}/feature_flags/`, {
          method: 'POST',
          body: JSON.stringify({ key: 'pro-plan', filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }], rollout_percentage: 100 }] } }),
        });
        expect(created.status).toBe(201);
        const createdAt = Date.now();
        const served = await eventually(
          async () => (await json(await fetch(`${urls[1]}/flags/?v=2`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: credentials.project_api_key, distinct_id: 'crm-3' }) }))) as { flags: Record<string, { enabled: boolean }> },
          (body) => body.flags['pro-plan'] !== undefined,
          5000,
        );
        expect(Date.now() - createdAt).toBeLessThan(1000);
        // crm-3 is an alias of person-3, whose plan is pro: the merged person's properties are read.
        expect(served.flags['pro-plan'].enabled).toBe(true);

        // Every acknowledged event is listed exactly once, through both api processes.
        for (const i of [0, 1]) {
          const listed = await listedOnceAllArrived(`${urls[i]}${base}/events/?event=mp&limit=500`, credentials.personal_api_key, acked);
          expect(listed.length).toBe(acked.length);
          expect(new Set(listed)).toEqual(new Set(acked));
        }
        // Identities merged across processes: three distinct ids on one person.
        const persons = (await json(await api(1, `${base}/persons/?distinct_id=crm-7`))) as { results: { distinct_ids: string[] }[] };
        expect([...persons.results[0].distinct_ids].sort()).toEqual(['anon-7', 'crm-7', 'person-7']);
      } finally {
        for (const p of all) p.child.kill('SIGTERM');
        await Promise.all(all.map((p) => p.exited));
      }
      const verify = cli(['verify']);
      expect(verify.code, verify.stdout + verify.stderr).toBe(0);
      expect(verify.stdout).not.toMatch(/DIFF|BEHIND/);
    }, 240_000);
  });
}
