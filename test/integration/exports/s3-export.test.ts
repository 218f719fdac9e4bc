import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type LocalS3 } from '../../support/s3-server';
import { readParquet } from '../../unit/exports-formats/parquet-read';
import { makeEvents, startExportServer, type ExportServer } from './harness';

let s: ExportServer;
let s3: LocalS3;
const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
const INTERVAL = '2024-09-02T10:00:00+00:00-2024-09-02T11:00:00+00:00';

beforeAll(async () => {
  s = await startExportServer({ start: '2024-09-02T09:58:00Z' });
  s3 = await startS3Server('exports');
});
afterAll(async () => {
  await s.close();
  await s3.stop();
});

const destination = (config: Record<string, unknown>) => ({
  type: 'S3',
  config: { bucket_name: s3.bucket, region: s3.region, endpoint_url: s3.endpoint, aws_access_key_id: s3.accessKeyId, aws_secret_access_key: s3.secretAccessKey, ...config },
});

describe('S3 destination (local S3-compatible server), end to end', () => {
  it('writes gzipped JSONLines and split Parquet with a manifest under a rendered prefix; a re-run rewrites the same keys', async () => {
    const base = `/api/projects/${s.projectId}/batch_exports`;
    const jsonl = await s.call(`${base}/`, post({ name: 'jsonl', interval: 'hour', destination: destination({ prefix: 'jsonl/{year}/{month}/{day}/{hour}', compression: 'gzip' }) }));
    const parquet = await s.call(`${base}/`, post({
      name: 'parquet',
      interval: 'hour',
      destination: destination({ prefix: 'pq/{table}', file_format: 'Parquet', compression: 'snappy', max_file_size_mb: 0.05 }),
    }));
    s.clock.set('2024-09-02T10:30:00Z');
    const events = makeEvents(1200, { users: 30 }).map((e, i) => ({ ...e, properties: { ...e.properties, padding: `${i}-`.repeat(20) } }));
    await s.capture(events);
    s.clock.set('2024-09-02T11:00:02Z');
    await s.tick();

    for (const id of [jsonl.id, parquet.id]) {
      const [run] = (await s.call(`${base}/${id}/runs/`)).results;
      expect(run, id).toMatchObject({ status: 'Completed', records_completed: 1200, records_total_count: 1200 });
    }
    const uuids = (await s.runtime.queries.ingestion.events(s.projectId, { limit: 5000 })).map((e) => e.uuid).sort();

    const key = `jsonl/2024/09/02/11/${INTERVAL}.jsonl.gz`;
    expect(await s3.listKeys(s3.bucket, 'jsonl/')).toEqual([key]);
    const lines = gunzipSync(await s3.getObject(s3.bucket, key)).toString().trimEnd().split('\n').map((l) => JSON.parse(l) as { uuid: string; properties: { padding: string } });
    expect(lines.map((l) => l.uuid).sort()).toEqual(uuids);

    const manifestKey = `pq/events/${INTERVAL}_manifest.json`;
    const manifest = JSON.parse((await s3.getObject(s3.bucket, manifestKey)).toString()) as { files: string[] };
    expect(manifest.files.length).toBeGreaterThan(1);
    expect(await s3.listKeys(s3.bucket, 'pq/')).toEqual([...manifest.files, manifestKey].sort());
    const rows: Record<string, unknown>[] = [];
    for (const [i, file] of manifest.files.entries()) {
      expect(file).toBe(`pq/events/${INTERVAL}-${i}.parquet.sz`);
      rows.push(...(await readParquet(await s3.getObject(s3.bucket, file))));
    }
    expect(rows.map((r) => r.uuid).sort()).toEqual(uuids);
    expect(rows.every((r) => Number(r.team_id) === s.projectId)).toBe(true);

    const [run] = (await s.call(`${base}/${parquet.id}/runs/`)).results;
    await s.call(`${base}/${parquet.id}/runs/${run.id}/retry/`, post({}));
    await s.tick();
    expect(await s3.listKeys(s3.bucket, 'pq/')).toEqual([...manifest.files, manifestKey].sort());
    const logs = await s.call(`${base}/${parquet.id}/runs/${run.id}/logs/?level=INFO&limit=500`);
    expect(logs.results.some((l: { message: string }) => l.message.startsWith('Wrote ') && l.message.includes('s3://exports/pq/events/'))).toBe(true);
  });
});
