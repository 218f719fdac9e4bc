import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { cli } from '../../support/cli';
import { startExportServer, type ExportServer } from './harness';

let s: ExportServer;
let base: string;
let exportId: string;
const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
const path = (url: string) => url.replace(s.url, '');
type Run = { id: string; data_interval_end: string };

beforeAll(async () => {
  s = await startExportServer({ start: '2024-10-07T10:00:30Z' });
  base = `/api/projects/${s.projectId}/batch_exports`;
  exportId = (await s.call(`${base}/`, post({ name: 'pages', destination: { type: 'NoOp', config: {} }, interval: 'every 5 minutes' }))).id;
  s.clock.set('2024-10-07T13:00:30Z');
  await s.tick();
});
afterAll(async () => s.close());

describe('runs list (cursor envelope)', () => {
  it('pages newest first with opaque cursors that stay put while runs are added', async () => {
    const first = await s.call(`${base}/${exportId}/runs/?limit=10`);
    expect(Object.keys(first).sort()).toEqual(['next', 'previous', 'results']);
    expect(first.previous).toBeNull();
    expect(first.results).toHaveLength(10);
    expect(first.results[0].data_interval_end).toBe('2024-10-07T13:00:00.000Z');
    expect(new URL(first.next).searchParams.get('cursor')).toMatch(/^[A-Za-z0-9_-]+$/);

    // New runs arrive between page requests.
    s.clock.set('2024-10-07T14:00:30Z');
    await s.tick();

    const second = await s.call(path(first.next));
    expect(second.results[0].data_interval_end).toBe('2024-10-07T12:10:00.000Z');
    const back = await s.call(path(second.previous));
    expect(back.results.map((r: Run) => r.id)).toEqual(first.results.map((r: Run) => r.id));
    expect(back.previous).not.toBeNull();

    const seen: Run[] = [];
    let next: string | null = `${base}/${exportId}/runs/?limit=7`;
    while (next) {
      const page = await s.call(path(next));
      seen.push(...page.results);
      next = page.next;
    }
    expect(seen).toHaveLength(48);
    expect(new Set(seen.map((r) => r.id)).size).toBe(48);
    const ends = seen.map((r) => r.data_interval_end);
    expect(ends).toEqual([...ends].sort().reverse());

    const run = await s.call(`${base}/${exportId}/runs/${seen[0].id}/`);
    expect(run).toMatchObject({ id: seen[0].id, status: 'Completed', records_completed: 0, batch_export: exportId, cursor: null });
  });

  it('refuses bad cursors and limits', async () => {
    const bad = await s.api(`${base}/${exportId}/runs/?cursor=garbage`);
    expect(bad.status).toBe(404);
    expect((await json(bad)).detail).toBe('Invalid cursor');
    expect((await s.api(`${base}/${exportId}/runs/?limit=1001`)).status).toBe(400);
    expect((await s.api(`${base}/${exportId}/runs/00000000-0000-4000-8000-000000000000/`)).status).toBe(404);
  });
});

describe('logs (offset envelope)', () => {
  it('lists newest first, 50 by default, at most 500, filtered by level, per export and per run', async () => {
    const all = await s.call(`${base}/${exportId}/logs/`);
    // Each of the 48 runs logged: start (INFO), record count (DEBUG), no-op notice, completion (INFO).
    expect(all.count).toBeGreaterThanOrEqual(48 * 3);
    expect(all.results).toHaveLength(50);
    expect(all.previous).toBeNull();
    expect(new URL(all.next).searchParams.get('offset')).toBe('50');
    expect(all.results[0]).toEqual({
      team_id: s.projectId,
      batch_export_id: exportId,
      run_id: expect.any(String),
      timestamp: '2024-10-07T14:00:30.000Z',
      level: expect.any(String),
      message: expect.any(String),
    });
    const stamps = all.results.map((l: { timestamp: string }) => l.timestamp);
    expect(stamps).toEqual([...stamps].sort().reverse());

    expect((await s.call(`${base}/${exportId}/logs/?limit=500`)).results).toHaveLength(Math.min(500, all.count));
    const tooMany = await s.api(`${base}/${exportId}/logs/?limit=501`);
    expect(tooMany.status).toBe(400);
    expect((await json(tooMany)).detail).toBe("'limit' must be at most 500.");

    const debug = await s.call(`${base}/${exportId}/logs/?level=DEBUG&limit=500`);
    expect(debug.count).toBe(48);
    expect(debug.results.every((l: { level: string }) => l.level === 'DEBUG')).toBe(true);
    expect((await s.call(`${base}/${exportId}/logs/?level=debug,error`)).count).toBe(48);
    expect((await s.api(`${base}/${exportId}/logs/?level=LOUD`)).status).toBe(400);

    const runId = all.results[0].run_id as string;
    const own = await s.call(`${base}/${exportId}/runs/${runId}/logs/`);
    expect(own.count).toBeGreaterThanOrEqual(3);
    expect(own.results.every((l: { run_id: string }) => l.run_id === runId)).toBe(true);
    expect((await s.api(`${base}/${exportId}/runs/00000000-0000-4000-8000-000000000000/logs/`)).status).toBe(404);
  });
});

describe('replay', () => {
  it('reproduces exports, runs and logs exactly (npm run cli -- verify)', async () => {
    await s.call(`${base}/${exportId}/pause/`, post({}));
    await s.call(`${base}/${exportId}/backfill/`, post({ start_at: '2024-10-07T08:00:00Z', end_at: '2024-10-07T08:20:00Z' }));
    await s.tick();
    await s.close();
    const result = cli(s.dataDir, ['verify', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = (JSON.parse(result.stdout) as { ok: boolean; rows: { projection: string; equal: boolean; position: number }[] }).rows;
    for (const name of ['batch_exports', 'batch_export_runs', 'batch_export_logs']) {
      const row = rows.find((r) => r.projection === name);
      expect(row, name).toMatchObject({ equal: true });
      expect(row!.position).toBeGreaterThan(0);
    }
    // Reopened for afterAll's close.
    s = await startExportServer({ start: '2024-10-07T15:00:00Z', dataDir: s.dataDir });
  });
});
