import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRuntime } from '../../../src/app';
import { capturedInLog } from '../../support/captured';
import { kill9, runBuilt, runCli } from '../../support/child';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp-dir';

type Row = { uuid: string; n: number };

async function caughtUp(dataDir: string) {
  const runtime = openRuntime({ dataDir });
  await runtime.runner.catchUp();
  return runtime;
}

describe('ingestion crash safety', () => {
  it('every batch answered {"status":1} survives SIGKILL of the server, none twice', async () => {
    const dir = tempDir('ingest-crash-');
    const server = runBuilt({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'info', PRINT_CREDENTIALS: 'false' });
    const listening = await server.waitForLine((l) => l.includes('Server listening'));
    const url = /listening at (http:\/\/[^"\s]+)/.exec(listening)![1];
    const { project_api_key: token } = (await import(join(dir, 'credentials.json'), { with: { type: 'json' } })).default;

    const acked: string[][] = [];
    let stop = false;
    const client = async () => {
      while (!stop) {
        const uuids = Array.from({ length: 200 }, () => randomUUID());
        const batch = uuids.map((uuid, i) => ({ event: 'crash', uuid, properties: { distinct_id: `c-${i % 7}` } }));
        try {
          const res = await fetch(`${url}/batch/`, { method: 'POST', body: JSON.stringify({ api_key: token, batch }) });
          if (res.status === 200 && ((await res.json()) as { status: number }).status === 1) acked.push(uuids);
        } catch {
          return; // the server is gone
        }
      }
    };
    const clients = Array.from({ length: 4 }, client);
    while (acked.length < 40) await new Promise((r) => setTimeout(r, 20));
    kill9(server.child);
    await server.exited;
    stop = true;
    await Promise.all(clients);

    const runtime = await caughtUp(dir);
    const rows = runtime.stores!.readmodels.prepare("SELECT uuid, count(*) AS n FROM events WHERE event = 'crash' GROUP BY uuid").all() as Row[];
    const stored = new Set(rows.map((r) => r.uuid));
    expect(rows.every((r) => r.n === 1)).toBe(true);
    const ackedUuids = acked.flat();
    expect(ackedUuids.length).toBeGreaterThanOrEqual(40 * 200);
    expect(ackedUuids.filter((u) => !stored.has(u))).toEqual([]);
    const logged = (await capturedInLog(runtime.log)).map((e) => e.uuid);
    expect(new Set(logged).size).toBe(logged.length);
    await runtime.close();
  });

  it('an import killed midway resumes from its saved position; every line lands once, in order', async () => {
    const dir = tempDir('import-crash-');
    const file = join(dir, 'history.jsonl');
    const n = 20_000;
    writeFileSync(file, Array.from({ length: n }, (_, i) => JSON.stringify({ event: 'imported', distinct_id: `i-${i % 30}`, timestamp: new Date(Date.UTC(2022, 0, 1) + i * 1000).toISOString(), properties: { line: i + 1 } })).join('\n') + '\n');
    expect(cli(dir, ['bootstrap', '--json']).code).toBe(0);

    const first = runCli(['import', file, '--batch-size', '250'], { DATA_DIR: dir });
    // The progress bar goes to stderr; kill once a few batches are saved.
    const { importStateStore } = await import('../../../src/cli/import-state');
    const creds = (await import(join(dir, 'credentials.json'), { with: { type: 'json' } })).default;
    const state = importStateStore(dir, `${creds.project_id}:${file}`);
    for (let i = 0; i < 600 && (state.load()?.line ?? 0) < 2000; i++) await new Promise((r) => setTimeout(r, 25));
    kill9(first.child);
    await first.exited;
    const stoppedAt = state.load()!.line;
    expect(stoppedAt).toBeGreaterThanOrEqual(2000);
    expect(stoppedAt).toBeLessThan(n);

    const second = cli(dir, ['import', file, '--batch-size', '250', '--json']);
    expect(second.code).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary.resumed_from_line).toBe(stoppedAt);
    expect(second.stderr).toMatch(/import \[#+\] 100\.0%/);

    const runtime = await caughtUp(dir);
    const lines = (runtime.stores!.readmodels.prepare("SELECT json_extract(properties, '$.line') AS line FROM events WHERE event = 'imported'").all() as { line: number }[]).map((r) => r.line);
    expect(lines).toHaveLength(n);
    expect(new Set(lines).size).toBe(n);
    // Log order follows file order (a repeated batch after the crash is a duplicate, dropped by uuid).
    const order = (await capturedInLog(runtime.log)).map((e) => (e.properties as { line: number }).line);
    const seen = new Set<number>();
    const firstSeen = order.filter((line) => !seen.has(line) && seen.add(line));
    expect(firstSeen).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    await runtime.close();
  });
});
