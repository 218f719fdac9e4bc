import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { cliArgs, kill9, repoRoot, runBuilt } from '../../support/child';
import { listedOnceAllArrived } from '../../support/listed-events';
import { deleteStream, LOCAL_NATS_URL, natsReachable, uniqueLayout } from '../../support/nats';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { TEST_SECRET_KEY } from '../../support/secret-key';
import { tempDir } from '../../support/temp-dir';

const USER = await reachablePgUser();
const REACHABLE = await natsReachable();

describe('PostgreSQL and NATS availability', () => {
  it.runIf(process.env.CI === 'true')('are reachable in CI', () => {
    expect(USER, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
    expect(REACHABLE, `NATS at ${LOCAL_NATS_URL} is unreachable`).toBe(true);
  });
});

const pgUrl = (schema: string) => `postgres://${USER}@${PG_HOST}:${PG_PORT}/${PG_DATABASE}?schema=${schema}`;

describe.runIf(USER !== null && REACHABLE)('ingest role on PostgreSQL: one holder under a lease, processes SIGKILLed', () => {
  const schemas = USER !== null ? pgSchemas(USER, 'nats_roles_test') : null;
  const layout = uniqueLayout();
  afterAll(async () => {
    await schemas?.dropAll();
    await deleteStream(LOCAL_NATS_URL, layout.stream);
  });

  it('a capture process and the ingest holder killed under load: the standby takes the ingest lease, every acknowledged uuid is listed once', async () => {
    const shared = {
      EVENT_LOG: pgUrl(schemas!.fresh()),
      READ_MODELS: pgUrl(schemas!.fresh()),
      SECRET_KEY: TEST_SECRET_KEY,
      PRINT_CREDENTIALS: 'false',
      PORT: '0',
      PROJECTIONS_NICE: '0',
      NATS_URL: LOCAL_NATS_URL,
      NATS_STREAM: layout.stream,
      NATS_SUBJECT_PREFIX: layout.prefix,
      NATS_ACK_WAIT_MS: '2000',
    };
    const boot = spawnSync(process.execPath, cliArgs(['bootstrap', '--json']), {
      cwd: repoRoot,
      env: { ...process.env, ...shared, DATA_DIR: tempDir('nats-roles-cli-') },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(boot.status, boot.stderr).toBe(0);
    const credentials = JSON.parse(boot.stdout.trim().split('\n').pop()!) as { project_id: number; project_api_key: string; personal_api_key: string };

    const start = (roles: string) => runBuilt({ ...shared, ROLES: roles, DATA_DIR: tempDir('nats-roles-') });
    const tookIngest = (l: string) => l.includes('"lease":"ingest"') && l.includes('took the lease');
    const listening = async (p: ReturnType<typeof runBuilt>) => /listening at (http:\/\/[^"\s]+)/.exec(await p.waitForLine((l) => l.includes('Server listening'), 60_000))![1];
    const holder = start('ingest,projections,exports');
    const all = [holder];
    try {
      await holder.waitForLine(tookIngest, 60_000);
      const standby = start('ingest,projections,exports');
      const capture = start('api');
      all.push(standby, capture);
      const url = await listening(capture);
      const acked: string[] = [];
      let killedCapture = false;
      const send = async (target: string) => {
        const batch = Array.from({ length: 25 }, (_, i) => ({ event: 'pg_nats', uuid: randomUUID(), distinct_id: `u${i % 5}` }));
        const res = await fetch(`${target}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: credentials.project_api_key, batch }) }).catch(() => null);
        if (res?.status === 200) acked.push(...batch.map((e) => e.uuid));
      };
      // Load on the capture process; it is SIGKILLed in the middle of it.
      const load = (async () => {
        for (let i = 0; i < 40 && !killedCapture; i++) await Promise.all([send(url), send(url)]);
      })();
      await new Promise((r) => setTimeout(r, 400));
      kill9(capture.child);
      killedCapture = true;
      await load;
      // The ingest holder dies mid-drain; the standby takes its lease.
      kill9(holder.child);
      await holder.exited;
      await standby.waitForLine(tookIngest, 30_000);

      const reader = start('api');
      all.push(reader);
      const readerUrl = await listening(reader);
      for (let i = 0; i < 5; i++) await send(readerUrl);
      expect(acked.length).toBeGreaterThan(100);
      const listed = await listedOnceAllArrived(`${readerUrl}/api/projects/${credentials.project_id}/events/?event=pg_nats&limit=1000`, credentials.personal_api_key, acked);
      // Exactly the acknowledged ones (and any a killed request stored before its answer), each once.
      expect(listed.length).toBe(new Set(listed).size);
      const got = new Set(listed);
      expect(acked.filter((u) => !got.has(u))).toEqual([]);
    } finally {
      for (const p of all) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await Promise.all(all.map((p) => p.exited));
    }
  }, 240_000);
});
