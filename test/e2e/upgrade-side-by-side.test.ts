import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { cliArgs, kill9, repoRoot, runBuilt } from '../support/child';
import { json } from '../support/json';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../support/postgres';
import { pgSchemas } from '../support/postgres-schema';
import { TEST_SECRET_KEY } from '../support/secret-key';
import { tempDir } from '../support/temp-dir';

// Issue 22, item 1: an upgrade that changes the ingestion and flags projections' versions on a store
// of many events. The upgraded service must answer as soon as a normal start does, with the old
// tables' answers, while the new versions are built beside them; then serve the new ones. The upgrade
// is made by marking the stored checkpoints as written by the previous versions, which is what the
// store of an older build holds. On PostgreSQL the store is smaller: its fold is several times slower
// than SQLite's (docs/benchmarks.md), and the suite runs in CI.
const PER_REQUEST = 10_000;
const PERSONS = 3_000;
const FLAGS = 20;
const UPGRADED = ['ingestion', 'feature_flags'];

interface Engine {
  name: string;
  events: number;
  env: Record<string, string>;
  /** Credentials of the store's project (the embedded store writes them on its first start). */
  credentials(): { personal_api_key: string; project_api_key: string; project_id: number };
  /** Whether the test also kills the service mid-rebuild and restarts it. */
  killMidRebuild: boolean;
  /** Runs an UPDATE on the read models; answers how many rows it changed. */
  update(sql: string, params: string[]): Promise<number>;
}

const USER = await reachablePgUser();
const schemas = USER === null ? null : pgSchemas(USER, 'upgrade_sbs');
let service: ReturnType<typeof runBuilt> | null = null;
afterAll(async () => {
  service?.child.kill('SIGKILL');
  await service?.exited;
  await schemas?.dropAll();
});

function sqliteEngine(): Engine {
  const dataDir = tempDir('upgrade-sbs-');
  return {
    name: 'SQLite',
    events: 600_000,
    killMidRebuild: false,
    env: { DATA_DIR: dataDir },
    credentials: () => JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')),
    async update(sql, params) {
      const db = new Database(join(dataDir, 'readmodels.sqlite'));
      const changed = db.prepare(sql).run(...params).changes;
      db.close();
      return changed;
    },
  };
}

function postgresEngine(): Engine {
  const url = (schema: string) => `postgres://${USER}@${PG_HOST}:${PG_PORT}/${PG_DATABASE}?schema=${schema}`;
  const modelSchema = schemas!.fresh();
  const env = { EVENT_LOG: url(schemas!.fresh()), READ_MODELS: url(modelSchema), SECRET_KEY: TEST_SECRET_KEY, DATA_DIR: tempDir('upgrade-sbs-pg-') };
  // A shared store is bootstrapped once, explicitly.
  const boot = spawnSync(process.execPath, cliArgs(['bootstrap', '--json']), {
    cwd: repoRoot,
    env: { ...process.env, ...env, DATA_DIR: tempDir('upgrade-sbs-cli-') },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (boot.status !== 0) throw new Error(boot.stderr);
  const credentials = JSON.parse(boot.stdout.trim().split('\n').pop()!);
  return {
    name: 'PostgreSQL',
    events: 60_000,
    killMidRebuild: true,
    env,
    credentials: () => credentials,
    async update(sql, params) {
      const client = new pg.Client({ ...schemas!.connection, options: `-c search_path=${modelSchema}` });
      await client.connect();
      let n = 0;
      const changed = (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rowCount ?? 0;
      await client.end();
      return changed;
    },
  };
}

const engines: [string, () => Engine][] = [['SQLite', sqliteEngine]];
if (USER !== null) engines.push(['PostgreSQL', postgresEngine]);

type Health = { log_head: number; projections: Record<string, number>; rebuilds: Record<string, { version: number; position: number }> };
const health = async (url: string) => (await json(await fetch(`${url}/_health`))) as Health;
async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 240_000) {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(engines)('an upgrade of the ingestion and flags projections on the built service (%s)', (_name, makeEngine) => {
  it('serves the old answers at once while the new versions build, then the new versions (where asked: killed mid-rebuild, it resumes)', async () => {
    const engine = makeEngine();
    const EVENTS = engine.events;
    const env = { ...engine.env, PORT: '0', LOG_LEVEL: 'info', PRINT_CREDENTIALS: 'false' };
    /** Starts the built service; resolves with its URL and how long it took to listen. */
    const start = async () => {
      const started = performance.now();
      service = runBuilt(env);
      const line = await service.waitForLine((l) => /listening at http/.test(l), 120_000);
      return { url: /listening at (http:\/\/[^"\s]+)/.exec(line)![1], ms: performance.now() - started };
    };
    const stop = async () => {
      service!.child.kill('SIGTERM');
      await service!.exited;
      service = null;
    };
    /** Marks the upgraded projections' checkpoints as written by their previous versions. */
    const downgradeStoredVersions = async () => {
      const changed = await engine.update(`UPDATE projection_checkpoints SET version = version - 1 WHERE name IN (${UPGRADED.map(() => '?').join(', ')})`, UPGRADED);
      expect(changed).toBe(UPGRADED.length);
    };
    let { url } = await start();
    const credentials = engine.credentials();
    const base = `/api/projects/${credentials.project_id}`;
    const api = (path: string, body?: unknown) =>
      fetch(url + path, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${credentials.personal_api_key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    for (let f = 0; f < FLAGS; f++) {
      const created = await api(`${base}/feature_flags/`, {
        key: `flag-${f}`,
        filters: { groups: [{ properties: [{ key: 'plan', value: f % 2 ? 'pro' : 'free', operator: 'exact', type: 'person' }], rollout_percentage: 30 + f * 3 }] },
      });
      expect(created.status).toBe(201);
    }
    for (let sent = 0; sent < EVENTS; sent += PER_REQUEST) {
      const batch = Array.from({ length: PER_REQUEST }, (_, i) => {
        const n = sent + i;
        const user = `user-${n % PERSONS}`;
        return { event: n % 7 ? 'viewed' : 'bought', distinct_id: user, properties: { n, $set: { plan: n % 3 ? 'free' : 'pro', seen: n } }, timestamp: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString() };
      });
      const res = await fetch(`${url}/batch/`, { method: 'POST', body: gzipSync(JSON.stringify({ api_key: credentials.project_api_key, batch })), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
      expect(res.status).toBe(200);
    }
    await until('the fold', async () => {
      const h = await health(url);
      return UPGRADED.every((name) => h.projections[name] >= h.log_head);
    });

    // What clients see before the upgrade.
    const users = Array.from({ length: 12 }, (_, i) => `user-${i * 251}`);
    const answers = async () => {
      const out: Record<string, unknown> = {};
      for (const user of users) {
        const flags = await fetch(`${url}/flags/?v=2`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: credentials.project_api_key, distinct_id: user }) });
        const persons = await api(`${base}/persons/?distinct_id=${user}`);
        const events = await api(`${base}/events/?distinct_id=${user}&limit=5`);
        for (const res of [flags, persons, events]) {
          if (res.status === 200) continue;
          const logged = service!.lines.filter((l) => l.includes('"level":50')).slice(-2);
          throw new Error(`${res.url} answered ${res.status}: ${await res.text()}; the service logged: ${logged.join('\n')}`);
        }
        const flagValues = Object.fromEntries(Object.entries((await json(flags)).flags as Record<string, { enabled: boolean; variant: unknown }>).map(([k, v]) => [k, [v.enabled, v.variant]]));
        out[user] = { flags: flagValues, persons: (await json(persons)).results, events: (await json(events)).results };
      }
      out.list = (await json(await api(`${base}/persons/?limit=20`))).results;
      return out;
    };
    const before = await answers();
    await stop();
    const normal = await start();
    url = normal.url;
    expect(await answers()).toEqual(before);
    await stop();

    // The upgrade: served as soon as a normal start, the old answers meanwhile, no 5xx, no refusal.
    await downgradeStoredVersions();
    const upgraded = await start();
    url = upgraded.url;
    console.log(`[upgrade, ${engine.name}] ${EVENTS} events: a normal start listened after ${Math.round(normal.ms)} ms, the upgraded one after ${Math.round(upgraded.ms)} ms`);
    expect(upgraded.ms).toBeLessThan(normal.ms * 2 + 1_000);
    const during = await health(url);
    expect(Object.keys(during.rebuilds).sort()).toEqual([...UPGRADED].sort());
    let servedDuringRebuild = 0;
    for (;;) {
      const rebuilding = Object.keys((await health(url)).rebuilds).length > 0;
      expect(await answers()).toEqual(before);
      if (!rebuilding) break;
      servedDuringRebuild++;
    }
    expect(servedDuringRebuild).toBeGreaterThan(0);
    const after = await health(url);
    expect(after.rebuilds).toEqual({});
    for (const name of UPGRADED) expect(after.projections[name]).toBeGreaterThanOrEqual(after.log_head);

    // Upgraded again, killed mid-rebuild: the next start resumes it and it completes. On the
    // smaller store only (the suite's time): the runner-level test resumes on both engines.
    if (!engine.killMidRebuild) return void (await stop());
    await stop();
    await downgradeStoredVersions();
    url = (await start()).url;
    await until('the rebuild to make progress', async () => Object.values((await health(url)).rebuilds).some((r) => r.position > 0));
    // Killed once the ingestion rebuild's progress is committed (the serving process reports a
    // batch before its checkpoint's commit has landed; the flags' rebuild, small, may be over).
    const ingestion = (await health(url)).rebuilds.ingestion;
    expect(ingestion).toBeDefined();
    const committed = `ingestion__v${ingestion!.version}`;
    await until('the ingestion rebuild to commit progress', async () => (await engine.update('SELECT 1 FROM projection_checkpoints WHERE position > 0 AND name = ?', [committed])) === 1);
    kill9(service!.child);
    await service!.exited;
    service = null;
    url = (await start()).url;
    // Resumed, not started over: the ingestion rebuild goes on from its committed progress (or,
    // the rest of it being short, has already taken over).
    const resumed = (await health(url)).rebuilds.ingestion;
    expect(resumed === undefined || resumed.position > 0, JSON.stringify(resumed)).toBe(true);
    await until('the resumed rebuild to take over', async () => Object.keys((await health(url)).rebuilds).length === 0);
    expect(await answers()).toEqual(before);
    await stop();
  }, 900_000);
});
