// A backfill may create at most EXPORT_BACKFILL_MAX_RUNS runs; unpausing with backfill as well.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExportServer, type ExportServer } from './harness';

let s: ExportServer;
let base: string;
const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });

beforeAll(async () => {
  s = await startExportServer({ start: '2024-06-03T10:05:00Z', env: { EXPORT_BACKFILL_MAX_RUNS: '24' } });
  base = `/api/projects/${s.projectId}/batch_exports`;
});
afterAll(async () => s.close());

const create = async (interval = 'hour') =>
  s.call(`${base}/`, post({ name: 'b', destination: { type: 'NoOp', config: {} }, interval }));

async function refused(path: string, body: unknown): Promise<string> {
  const head = await s.runtime.log.head();
  const res = await s.api(path, post(body));
  const answer = (await res.json()) as { detail: string };
  expect(res.status, JSON.stringify(answer)).toBe(400);
  expect(answer).toMatchObject({ type: 'validation_error', code: 'invalid_input' });
  expect(await s.runtime.log.head()).toBe(head);
  return answer.detail;
}

describe('backfill cap', () => {
  it('refuses a backfill of more intervals than the maximum, naming both numbers', async () => {
    const exp = await create('every 5 minutes');
    const detail = await refused(`${base}/${exp.id}/backfill/`, { start_at: '2000-01-01T00:00:00Z', end_at: '2024-06-03T10:00:00Z' });
    expect(detail).toBe(
      'This backfill would create 2,569,080 runs (one per interval), more than the 24 a backfill may create (EXPORT_BACKFILL_MAX_RUNS). Backfill a shorter range, or several in turn.',
    );
    expect(await refused(`${base}/${exp.id}/backfill/`, { start_at: '2024-06-03T07:55:00Z', end_at: '2024-06-03T10:00:00Z' })).toMatch(/create 25 runs/);
    // Exactly the maximum is accepted, and schedules that many runs.
    await s.call(`${base}/${exp.id}/backfill/`, post({ start_at: '2024-06-03T08:00:00Z', end_at: '2024-06-03T10:00:00Z' }));
    await s.scheduler.tick();
    const runs = await s.call(`${base}/${exp.id}/runs/?limit=100`);
    expect(runs.results.filter((r: { backfill: string | null }) => r.backfill !== null)).toHaveLength(24);
  });

  it('applies the same cap to unpause with backfill, not to a plain unpause', async () => {
    s.clock.set('2024-06-03T10:05:00Z');
    const capped = await create();
    const plain = await create();
    for (const e of [capped, plain]) await s.call(`${base}/${e.id}/pause/`, post({}));
    s.clock.set('2024-06-05T10:05:00Z'); // 48 hourly intervals ended while paused
    expect(await refused(`${base}/${capped.id}/unpause/`, { backfill: true })).toMatch(/^Unpausing with backfill would create 48 runs .* more than the 24/);
    expect((await s.call(`${base}/${capped.id}/`)).paused).toBe(true);
    expect((await s.call(`${base}/${plain.id}/unpause/`, post({}))).paused).toBe(false);
    s.clock.set('2024-06-04T09:05:00Z');
    const recent = await create();
    await s.call(`${base}/${recent.id}/pause/`, post({}));
    s.clock.set('2024-06-05T09:05:00Z'); // 24 intervals: allowed
    expect((await s.call(`${base}/${recent.id}/unpause/`, post({ backfill: true }))).paused).toBe(false);
  });
});
