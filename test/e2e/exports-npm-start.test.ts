import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuilt } from '../support/child';
import { json } from '../support/json';
import { tempDir } from '../support/temp-dir';

const dataDir = tempDir('npm-start-exports-');
// A relative File path lands under the default export root, `$DATA_DIR/exports`.
const exportDir = join(dataDir, 'exports', 'sdk-files');
let server: ReturnType<typeof runBuilt>;
let url: string;
let credentials: { personal_api_key: string; project_api_key: string; project_id: number };

beforeAll(async () => {
  // The production build (dist/): its export reader threads are started from compiled entries.
  server = runBuilt({
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'info',
    PRINT_CREDENTIALS: 'false',
    EXPORT_SCHEDULER_INTERVAL_MS: '200',
    EXPORT_WORKER_POLL_MS: '200',
  });
  const line = await server.waitForLine((l) => /listening at http/.test(l), 60_000);
  url = /listening at (http:\/\/[^"\s]+)/.exec(line)![1];
  credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
});
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
});

const api = (path: string, body?: unknown) =>
  fetch(url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${credentials.personal_api_key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('npm start runs the export scheduler and worker', () => {
  it('backfills events sent by posthog-node into files, with runs and logs over the API', async () => {
    const hour = 3_600_000;
    const start = Math.floor(Date.now() / hour) * hour - 3 * hour;
    const client = new PostHog(credentials.project_api_key, { host: url, flushAt: 100, flushInterval: 0, fetchRetryCount: 0 });
    for (let i = 0; i < 30; i++) {
      client.capture({ distinctId: `sdk-user-${i % 4}`, event: i % 2 ? 'clicked' : 'viewed', properties: { i }, timestamp: new Date(start + i * 60_000) });
    }
    client.capture({ distinctId: 'sdk-user-0', event: 'outside', timestamp: new Date(start + hour + 1000) });
    await client.shutdown();

    const base = `/api/projects/${credentials.project_id}/batch_exports`;
    const created = await api(`${base}/`, { name: 'sdk files', destination: { type: 'File', config: { path: 'sdk-files' } }, interval: 'hour' });
    expect(created.status).toBe(201);
    const exp = await json(created);
    const backfill = await api(`${base}/${exp.id}/backfill/`, { start_at: new Date(start).toISOString(), end_at: new Date(start + hour).toISOString() });
    expect(backfill.status).toBe(200);

    let run: { status: string; records_completed: number; id: string } | undefined;
    for (let waited = 0; waited < 30_000 && run?.status !== 'Completed'; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      run = (await json(await api(`${base}/${exp.id}/runs/`))).results.find((r: { backfill: string | null }) => r.backfill !== null);
    }
    expect(run).toMatchObject({ status: 'Completed', records_completed: 30 });
    const [file] = await readdir(exportDir);
    const rows = (await readFile(join(exportDir, file), 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l) as { event: string; properties: { i: number; $lib: string } });
    expect(rows.map((r) => r.properties.i).sort((x, y) => x - y)).toEqual([...Array(30).keys()]);
    expect(rows.every((r) => r.properties.$lib === 'posthog-node')).toBe(true);
    const logs = await json(await api(`${base}/${exp.id}/runs/${run!.id}/logs/`));
    expect(logs.results.some((l: { message: string }) => l.message.includes('Completed: exported 30 of 30 records'))).toBe(true);
  });
});
