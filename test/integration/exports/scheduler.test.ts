import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../../../src/app';
import { runTs } from '../../support/child';
import { tempDir } from '../../support/temp-dir';
import { startExportServer, type ExportServer } from './harness';

const MIN = 60_000;
let s: ExportServer;
let base: string;
const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });

beforeAll(async () => {
  s = await startExportServer({ start: '2024-05-06T10:20:00Z' });
  base = `/api/projects/${s.projectId}/batch_exports`;
});
afterAll(async () => s.close());

async function create(body: Record<string, unknown> = {}) {
  return s.call(`${base}/`, post({ name: 'e', destination: { type: 'NoOp', config: {} }, interval: 'hour', ...body }));
}

/** Every run of an export, oldest first, as [start, end] pairs, read through the runs API. */
async function intervals(id: string): Promise<[string, string][]> {
  const out: [string, string][] = [];
  let next: string | null = `${base}/${id}/runs/?limit=2`;
  while (next) {
    const page = await s.call(next.replace(s.url, ''));
    for (const r of page.results) out.push([r.data_interval_start.slice(11, 16), r.data_interval_end.slice(11, 16)]);
    next = page.next;
  }
  return out.reverse();
}

/** Moves the driven clock to `hhmm` on the test day, ticking the scheduler every `stepMin` minutes. */
async function runClockTo(hhmm: string, stepMin = 7) {
  const target = Date.parse(`2024-05-06T${hhmm}:00Z`);
  while (s.clock.now().getTime() < target) {
    s.clock.advance(Math.min(stepMin * MIN, target - s.clock.now().getTime()));
    await s.scheduler.tick();
  }
}

describe('export scheduler (driven clock)', () => {
  it('schedules an hourly export over 5 hours as exactly 5 runs with the right intervals', async () => {
    s.clock.set('2024-05-06T10:20:00Z');
    const ticked = await create();
    const caughtUp = await create();
    await runClockTo('15:20');
    const expected = [['10:00', '11:00'], ['11:00', '12:00'], ['12:00', '13:00'], ['13:00', '14:00'], ['14:00', '15:00']];
    expect(await intervals(ticked.id)).toEqual(expected);
    // Ticking again at the same time adds nothing; another process ticking adds nothing either.
    expect(await s.scheduler.tick()).toMatchObject({ scheduled: 0 });
    expect(await intervals(caughtUp.id)).toEqual(expected);
    const runs = (await s.call(`${base}/${ticked.id}/runs/`)).results;
    expect(runs.every((r: { status: string }) => r.status === 'Starting')).toBe(true);
    expect((await s.call(`${base}/${ticked.id}/`)).latest_runs).toHaveLength(5);
  });

  it('skips the intervals that ended while paused, or fills them on unpause with backfill', async () => {
    s.clock.set('2024-05-06T10:20:00Z');
    const gap = await create();
    const filled = await create();
    await runClockTo('11:30');
    for (const e of [gap, filled]) await s.call(`${base}/${e.id}/pause/`, post({}));
    await runClockTo('13:30');
    await s.call(`${base}/${gap.id}/unpause/`, post({}));
    await s.call(`${base}/${filled.id}/unpause/`, post({ backfill: true }));
    await runClockTo('14:10');
    expect(await intervals(gap.id)).toEqual([['10:00', '11:00'], ['13:00', '14:00']]);
    expect(await intervals(filled.id)).toEqual([['10:00', '11:00'], ['11:00', '12:00'], ['12:00', '13:00'], ['13:00', '14:00']]);
  });

  it('creates nothing for an export created paused until it is unpaused', async () => {
    s.clock.set('2024-05-06T10:20:00Z');
    const exp = await create({ paused: true });
    await runClockTo('12:10');
    expect(await intervals(exp.id)).toEqual([]);
    await s.call(`${base}/${exp.id}/unpause/`, post({}));
    await runClockTo('13:05');
    expect(await intervals(exp.id)).toEqual([['12:00', '13:00']]);
  });

  it('honours start_at and end_at, and 5-minute intervals', async () => {
    s.clock.set('2024-05-06T10:20:00Z');
    const bounded = await create({ start_at: '2024-05-06T12:30:00Z', end_at: '2024-05-06T15:00:00Z' });
    const fast = await create({ interval: 'every 5 minutes', end_at: '2024-05-06T10:40:00Z' });
    await runClockTo('17:00', 13);
    expect(await intervals(bounded.id)).toEqual([['12:00', '13:00'], ['13:00', '14:00'], ['14:00', '15:00']]);
    expect(await intervals(fast.id)).toEqual([['10:20', '10:25'], ['10:25', '10:30'], ['10:30', '10:35'], ['10:35', '10:40']]);
  });

  it('schedules a backfill as one run per whole interval, in order, once each has ended', async () => {
    s.clock.set('2024-05-06T10:20:00Z');
    const exp = await create({ paused: true });
    await s.call(`${base}/${exp.id}/backfill/`, post({ start_at: '2024-05-06T07:30:00Z', end_at: '2024-05-06T11:00:00Z' }));
    await s.scheduler.tick();
    const runs = (await s.call(`${base}/${exp.id}/runs/`)).results.reverse();
    expect(runs.map((r: { data_interval_start: string }) => r.data_interval_start.slice(11, 16))).toEqual(['07:30', '08:30']);
    expect(new Set(runs.map((r: { backfill: string }) => r.backfill)).size).toBe(1);
    await runClockTo('11:40');
    expect(await intervals(exp.id)).toEqual([['07:30', '08:30'], ['08:30', '09:30'], ['09:30', '10:30']]);
  });
});

describe('two schedulers on one data directory', () => {
  it('never schedule the same interval twice (two runtimes in this process)', async () => {
    s.clock.set('2024-05-06T10:20:00Z');
    const exp = await create({ interval: 'every 5 minutes' });
    const other = openRuntime({ dataDir: s.dataDir, now: s.clock.now });
    await other.runner.catchUp();
    other.runner.start();
    try {
      const second = other.exports.scheduler();
      s.clock.set('2024-05-06T13:20:00Z');
      const results = await Promise.all([s.scheduler.tick(), second.tick(), s.scheduler.tick(), second.tick()]);
      // They did race: some ticks found intervals the other had just scheduled.
      expect(results.reduce((n, r) => n + r.alreadyScheduled, 0)).toBeGreaterThan(0);
      expect((await intervals(exp.id)).length).toBe(36);
      const events = await s.runtime.log.readAll();
      const scheduled = events.filter((e) => e.type === 'BatchExportRunScheduled' && (e.data as { batchExportId: string }).batchExportId === exp.id);
      expect(scheduled).toHaveLength(36);
    } finally {
      await other.close();
    }
  });

  it('never schedule the same interval twice (two child processes)', async () => {
    const dataDir = tempDir('two-schedulers-');
    const server = await startExportServer({ start: '2024-05-06T00:00:30Z', dataDir });
    const created = await server.call(`/api/projects/${server.projectId}/batch_exports/`, post({ name: 'c', destination: { type: 'NoOp', config: {} }, interval: 'every 5 minutes' }));
    // No process follows the log from here on, so both children decide from the same read model.
    await server.close();
    const goFile = join(dataDir, 'GO');
    const env = { DATA_DIR: dataDir, NOW: '2024-05-06T12:00:00Z', TICKS: '3', GO_FILE: goFile };
    const children = [runTs('test/integration/exports/children/scheduler-child.ts', [], env), runTs('test/integration/exports/children/scheduler-child.ts', [], env)];
    await Promise.all(children.map((c) => c.waitForLine((l) => l === 'ready', 60_000)));
    writeFileSync(goFile, '');
    const lines = await Promise.all(children.map((c) => c.waitForLine((l) => l.startsWith('{'), 60_000)));
    await Promise.all(children.map((c) => c.exited));
    const totals = lines.map((l) => JSON.parse(l) as { scheduled: number; alreadyScheduled: number });
    expect(totals[0].scheduled + totals[1].scheduled, JSON.stringify(totals)).toBe(144);
    // Both tried every interval on every tick: 2 processes x 3 ticks x 144, all but 144 refused.
    expect(totals[0].alreadyScheduled + totals[1].alreadyScheduled).toBe(2 * 3 * 144 - 144);

    const check = openRuntime({ dataDir });
    try {
      await check.runner.catchUp();
      const runs = await check.exports.queries.runs.latest(created.id, 1000);
      expect(runs).toHaveLength(144);
      expect(new Set(runs.map((r) => r.data_interval_end)).size).toBe(144);
    } finally {
      await check.close();
    }
  });
});
