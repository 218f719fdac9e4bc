import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliArgs, repoRoot, runBuilt } from '../../support/child';
import { eventually } from '../../support/eventually';
import { json } from '../../support/json';
import { deleteStream, LOCAL_NATS_URL, natsReachable, natsRequiredInCi, uniqueLayout } from '../../support/nats';
import { tempDir } from '../../support/temp-dir';

const REACHABLE = await natsReachable();

natsRequiredInCi(REACHABLE);

describe.runIf(REACHABLE)('the built service with NATS_URL: roles, the import CLI', () => {
  const layout = uniqueLayout();
  afterAll(() => deleteStream(LOCAL_NATS_URL, layout.stream));

  it('without the ingest role capture and import are acknowledged and wait in JetStream; the default roles then include ingest and append them once', async () => {
    const dataDir = tempDir('nats-service-');
    const env = { NATS_URL: LOCAL_NATS_URL, NATS_STREAM: layout.stream, NATS_SUBJECT_PREFIX: layout.prefix, DATA_DIR: dataDir, PORT: '0', PRINT_CREDENTIALS: 'false', PROJECTIONS_NICE: '0' };
    const listening = async (p: ReturnType<typeof runBuilt>) => /listening at (http:\/\/[^"\s]+)/.exec(await p.waitForLine((l) => l.includes('Server listening'), 60_000))![1];

    const first = runBuilt({ ...env, ROLES: 'api,projections' });
    let url: string;
    let token: string;
    let personal: string;
    try {
      url = await listening(first);
      ({ project_api_key: token, personal_api_key: personal } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { project_api_key: string; personal_api_key: string });
      const batch = Array.from({ length: 100 }, (_, i) => ({ event: 'live', uuid: randomUUID(), distinct_id: `u${i % 9}` }));
      const res = await fetch(`${url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: token, batch }) });
      expect(res.status).toBe(200);

      // The import CLI goes through NATS too.
      const file = join(dataDir, 'history.jsonl');
      writeFileSync(file, Array.from({ length: 500 }, (_, i) => JSON.stringify({ event: 'old', uuid: randomUUID(), distinct_id: `h${i % 13}`, timestamp: new Date(Date.UTC(2023, 0, 1, 0, i)).toISOString() })).join('\n') + '\n');
      const imported = spawnSync(process.execPath, cliArgs(['import', file, '--batch-size', '200']), { cwd: repoRoot, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
      expect(imported.status, imported.stderr).toBe(0);

      const health = await json(await fetch(`${url}/_health`));
      expect(health.ingest_transport.consumers[`${layout.stream}_live`].pending).toBe(1);
      expect(health.ingest_transport.consumers[`${layout.stream}_historical`].pending).toBe(3);
      const none = await json(await fetch(`${url}/api/projects/1/events/?limit=1000`, { headers: { authorization: `Bearer ${personal}` } }));
      expect(none.results).toHaveLength(0);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }

    const second = runBuilt(env);
    try {
      url = await listening(second);
      const count = async (event: string) =>
        (await json(await fetch(`${url}/api/projects/1/events/?event=${event}&limit=1000`, { headers: { authorization: `Bearer ${personal}` } }))).results.length as number;
      expect(await eventually(() => count('live'), (n) => n >= 100, 30_000)).toBe(100);
      expect(await eventually(() => count('old'), (n) => n >= 500, 30_000)).toBe(500);
      const lag = await eventually(
        async () => (await json(await fetch(`${url}/_health`))).ingest_transport.consumers as Record<string, { pending: number; ack_pending: number }>,
        (c) => Object.values(c).every((x) => x.pending + x.ack_pending === 0),
      );
      expect(Object.values(lag).map((x) => x.pending + x.ack_pending)).toEqual([0, 0]);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 180_000);
});
