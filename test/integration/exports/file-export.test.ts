import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readParquet } from '../../unit/exports-formats/parquet-read';
import { tempDir } from '../../support/temp-dir';
import { makeEvents, startExportServer, type ExportServer } from './harness';

let s: ExportServer;
let base: string;
const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
const HOUR_KEY = '2024-06-03T10:00:00+00:00-2024-06-03T11:00:00+00:00';

beforeAll(async () => {
  s = await startExportServer({ start: '2024-06-03T10:05:00Z' });
  base = `/api/projects/${s.projectId}/batch_exports`;
});
afterAll(async () => s.close());

async function createFileExport(config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const dir = tempDir('file-dest-');
  const exp = await s.call(`${base}/`, post({ name: 'f', destination: { type: 'File', config: { path: dir, ...config } }, interval: 'hour', ...extra }));
  return { exp, dir };
}

const lines = async (path: string) => (await readFile(path, 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('File destination, end to end through the scheduler and the worker', () => {
  it('exports the hour of ingested events (by ingestion time) as JSONLines, Completed with counts and logs', async () => {
    s.clock.set('2024-06-03T10:05:00Z');
    const { exp, dir } = await createFileExport({});
    const { exp: parquet, dir: parquetDir } = await createFileExport({ file_format: 'Parquet', compression: 'zstd' });
    const { exp: filtered, dir: filteredDir } = await createFileExport({ include_events: ['signed up'] });
    s.clock.set('2024-06-03T10:20:00Z');
    // Event time is irrelevant to scheduled runs: these happened yesterday but arrive now.
    const events = makeEvents(40, { timestamp: (i) => new Date(Date.UTC(2024, 5, 2, 8, 0, i)).toISOString() });
    await s.capture(events);
    s.clock.set('2024-06-03T11:10:00Z');
    await s.capture(makeEvents(5, { prefix: 'late' }));
    s.clock.set('2024-06-03T11:00:30Z');
    await s.tick();

    const run = (await s.call(`${base}/${exp.id}/runs/`)).results[0];
    expect(run).toMatchObject({
      status: 'Completed',
      records_completed: 40,
      records_total_count: 40,
      latest_error: null,
      data_interval_start: '2024-06-03T10:00:00.000Z',
      data_interval_end: '2024-06-03T11:00:00.000Z',
      finished_at: '2024-06-03T11:00:30.000Z',
      batch_export: exp.id,
    });
    expect(await readdir(dir)).toEqual([`${HOUR_KEY}.jsonl`]);
    const rows = await lines(join(dir, `${HOUR_KEY}.jsonl`));
    expect(rows).toHaveLength(40);
    const stored = await s.runtime.queries.ingestion.events(s.projectId, { limit: 100, before: '2024-06-03T00:00:00Z' });
    const byUuid = new Map(stored.map((e) => [e.uuid, e]));
    for (const row of rows) {
      const e = byUuid.get(row.uuid as string)!;
      expect(row).toEqual({
        uuid: e.uuid,
        event: e.event,
        properties: e.properties,
        distinct_id: e.distinct_id,
        team_id: s.projectId,
        timestamp: e.timestamp,
        created_at: e.received_at,
        person_id: e.person_id,
        person_properties: (await s.runtime.queries.ingestion.person(s.projectId, e.person_id!))!.properties,
        set: (e.properties.$set as object | undefined) ?? null,
        set_once: null,
        elements_chain: null,
      });
    }
    expect(rows.filter((r) => r.set !== null)).toHaveLength(8);

    const pq = await readParquet(await readFile(join(parquetDir, `${HOUR_KEY}.parquet.zst`)));
    expect(pq.map((r) => r.uuid).sort()).toEqual(rows.map((r) => r.uuid).sort());
    expect(JSON.parse(String(pq[0].properties))).toEqual(byUuid.get(String(pq[0].uuid))!.properties);

    const kept = await lines(join(filteredDir, `${HOUR_KEY}.jsonl`));
    expect(kept.map((r) => r.event)).toEqual(Array(14).fill('signed up'));
    expect((await s.call(`${base}/${filtered.id}/runs/`)).results[0]).toMatchObject({ records_completed: 14, records_total_count: 14 });

    const logs = await s.call(`${base}/${exp.id}/runs/${run.id}/logs/`);
    expect(logs.results.map((l: { level: string }) => l.level).sort()).toEqual(['DEBUG', 'INFO', 'INFO', 'INFO']);
    expect(logs.results.map((l: { message: string }) => l.message).join('\n')).toMatch(/Completed: exported 40 of 40 records/);
    expect((await s.call(`${base}/${parquet.id}/`)).latest_runs[0].status).toBe('Completed');
  });

  it('re-executing a completed run (retry) leaves the same single file, no duplicates', async () => {
    s.clock.set('2024-06-03T10:05:00Z');
    const { exp, dir } = await createFileExport({ max_file_size_mb: 1 });
    s.clock.set('2024-06-03T10:30:00Z');
    await s.capture(makeEvents(25));
    s.clock.set('2024-06-03T11:01:00Z');
    await s.tick();
    const [run] = (await s.call(`${base}/${exp.id}/runs/`)).results;
    const before = await readFile(join(dir, `${HOUR_KEY}-0.jsonl`), 'utf8');
    const retried = await s.call(`${base}/${exp.id}/runs/${run.id}/retry/`, post({}));
    expect(retried.status).toBe('Starting');
    await s.tick();
    expect((await s.call(`${base}/${exp.id}/runs/${run.id}/`)).status).toBe('Completed');
    expect((await readdir(dir)).sort()).toEqual([`${HOUR_KEY}-0.jsonl`, `${HOUR_KEY}_manifest.json`]);
    const after = await readFile(join(dir, `${HOUR_KEY}-0.jsonl`), 'utf8');
    expect(after.trimEnd().split('\n')).toHaveLength(65);
    expect(after).toBe(before);
  });

  it('backfills select by event timestamp', async () => {
    s.clock.set('2024-06-03T12:00:00Z');
    const { exp, dir } = await createFileExport({});
    await s.call(`${base}/${exp.id}/backfill/`, post({ start_at: '2024-06-02T08:00:00Z', end_at: '2024-06-02T09:00:00Z' }));
    await s.tick();
    const [run] = (await s.call(`${base}/${exp.id}/runs/`)).results;
    expect(run).toMatchObject({ status: 'Completed', records_completed: 40, data_interval_start: '2024-06-02T08:00:00.000Z' });
    const rows = await lines(join(dir, '2024-06-02T08:00:00+00:00-2024-06-02T09:00:00+00:00.jsonl'));
    expect(rows.every((r) => (r.timestamp as string).startsWith('2024-06-02T08:00'))).toBe(true);
  });

  it('exports the columns of a hogql_query, filtered by its WHERE', async () => {
    s.clock.set('2024-06-03T10:05:00Z');
    const { exp, dir } = await createFileExport({}, { hogql_query: "SELECT event, toInt(properties.n) AS n, lower(properties.$lib) AS lib FROM events WHERE properties.n >= 35 AND event != 'signed up'" });
    s.clock.set('2024-06-03T11:00:30Z');
    await s.tick();
    const rows = await lines(join(dir, `${HOUR_KEY}.jsonl`));
    // Of the 40 + 25 events of 10:00-11:00, n >= 35 and not 'signed up': n = 35, 37, 38 (first batch).
    expect(rows.map((r) => r.properties).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      { event: '$pageview', n: 35, lib: 'test' },
      { event: '$pageview', n: 37, lib: 'test' },
      { event: '$pageview', n: 38, lib: 'test' },
    ]);
    expect(rows[0]).toMatchObject({ team_id: s.projectId, person_properties: null, set: null });
  });

  it('fails non-retryable errors at once and pauses the export after 10 failures in 50 runs', async () => {
    const notADirectory = join(tempDir('blocked-'), 'file');
    s.clock.set('2024-06-03T10:05:00Z');
    const exp = await s.call(`${base}/`, post({ name: 'broken', destination: { type: 'File', config: { path: notADirectory } }, interval: 'every 5 minutes' }));
    // Created after the export (the API refuses such a path up front): the runs find a file there.
    await writeFile(notADirectory, 'x');
    for (let i = 0; i < 12; i++) {
      await s.capture(makeEvents(1, { prefix: `broken-${i}` }));
      s.clock.advance(5 * 60_000);
      await s.tick();
    }
    const runs = (await s.call(`${base}/${exp.id}/runs/`)).results;
    expect(runs).toHaveLength(10);
    expect(runs.every((r: { status: string }) => r.status === 'Failed')).toBe(true);
    expect(runs[0].latest_error).toMatch(/File export refused: 'file' on the path is not a directory/);
    const after = await s.call(`${base}/${exp.id}/`);
    expect(after.paused).toBe(true);
    const warnings = await s.call(`${base}/${exp.id}/logs/?level=WARNING`);
    expect(warnings.results.map((l: { message: string }) => l.message)).toEqual(['Batch export paused automatically: 10 of the last 50 runs failed']);
    const errors = await s.call(`${base}/${exp.id}/logs/?level=error`);
    expect(errors.count).toBe(10);
  });
});
