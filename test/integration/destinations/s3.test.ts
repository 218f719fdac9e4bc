import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DestinationError, destinations } from '../../../src/exports/destinations';
import type { S3Config } from '../../../src/exports/destinations';
import { startS3Server, type LocalS3 } from '../../support/s3-server';
import { readParquet } from '../../unit/exports-formats/parquet-read';
import { exportedJson, inBatches, makeRecords } from '../../unit/exports-formats/records';
import { INTERVAL_BASE, closedPort, runContext } from './run-context';

const s3 = destinations.S3;
let server: LocalS3;

beforeAll(async () => {
  server = await startS3Server();
});
afterAll(async () => {
  await server?.stop();
});

function config(overrides: Record<string, unknown> = {}): S3Config {
  const parsed = s3.configSchema.parse({
    bucket_name: server.bucket,
    region: server.region,
    endpoint_url: server.endpoint,
    aws_access_key_id: server.accessKeyId,
    aws_secret_access_key: server.secretAccessKey,
    ...overrides,
  });
  return parsed as S3Config;
}

const parseLines = (body: Buffer) =>
  body.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));

describe('S3 destination (s3rver)', () => {
  const decode = { none: (b: Buffer) => b, gzip: gunzipSync, brotli: brotliDecompressSync } as const;
  for (const compression of ['none', 'gzip', 'brotli'] as const) {
    it(`writes JSONLines (${compression}) under the templated prefix`, async () => {
      const records = makeRecords(250);
      const prefix = `jsonl-${compression}/{year}/{month}/{day}/{hour}`;
      const result = await s3.write(
        config({ prefix, compression: compression === 'none' ? null : compression }),
        runContext(),
        inBatches(records, 60),
      );

      const suffix = { none: '.jsonl', gzip: '.jsonl.gz', brotli: '.jsonl.br' }[compression];
      const key = `jsonl-${compression}/2024/01/15/11/${INTERVAL_BASE}${suffix}`;
      expect(await server.listKeys(server.bucket, `jsonl-${compression}/`)).toEqual([key]);
      const body = decode[compression](await server.getObject(server.bucket, key));
      expect(parseLines(body)).toEqual(records.map(exportedJson));
      expect(result.recordsCompleted).toBe(250);
      expect(result.bytesExported).toBe((await server.getObject(server.bucket, key)).length);
    });
  }

  for (const compression of ['zstd', 'lz4', 'snappy', 'gzip', 'brotli'] as const) {
    it(`writes Parquet (${compression}) that an independent reader reads back`, async () => {
      const records = makeRecords(120);
      await s3.write(config({ prefix: `pq-${compression}`, file_format: 'Parquet', compression }), runContext(), inBatches(records, 50));
      const ext = { zstd: 'zst', lz4: 'lz4', snappy: 'sz', gzip: 'gz', brotli: 'br' }[compression];
      const key = `pq-${compression}/${INTERVAL_BASE}.parquet.${ext}`;
      const rows = await readParquet(await server.getObject(server.bucket, key));
      expect(rows.map((r) => r.uuid)).toEqual(records.map((r) => r.uuid));
      expect(JSON.parse(String(rows[7].properties))).toEqual(records[7].properties);
      expect((rows[3].timestamp as Date).toISOString()).toBe(records[3].timestamp);
    });
  }

  it('fills every prefix placeholder from the interval', async () => {
    const prefix = '/{table}/{data_interval_start}/{year}{month}{day}T{hour}{minute}{second}';
    await s3.write(config({ prefix }), runContext(), inBatches(makeRecords(3), 3));
    expect(await server.listKeys(server.bucket, 'events/2024-01-15T10')).toEqual([
      `events/2024-01-15T10:00:00+00:00/20240115T110000/${INTERVAL_BASE}.jsonl`,
    ]);
  });

  it('splits into numbered files with a manifest, and a re-run leaves no duplicates (10k rows)', async () => {
    const records = makeRecords(10_000);
    const cfg = config({ prefix: 'split', compression: 'gzip', max_file_size_mb: 0.04 });
    const first = await s3.write(cfg, runContext(), inBatches(records, 1000));

    const manifestKey = `split/${INTERVAL_BASE}_manifest.json`;
    const manifest = JSON.parse((await server.getObject(server.bucket, manifestKey)).toString()) as { files: string[] };
    expect(manifest.files.length).toBeGreaterThan(2);
    manifest.files.forEach((key, i) => expect(key).toBe(`split/${INTERVAL_BASE}-${i}.jsonl.gz`));
    expect(await server.listKeys(server.bucket, 'split/')).toEqual([...manifest.files, manifestKey].sort());

    const sizes: number[] = [];
    const read = async (files: string[]) => {
      const rows: { uuid: string }[] = [];
      for (const key of files) {
        const body = await server.getObject(server.bucket, key);
        sizes.push(body.length);
        rows.push(...parseLines(gunzipSync(body)));
      }
      return rows;
    };
    const rows = await read(manifest.files);
    // Split once a file reaches the limit; gzip holds back up to one buffer, hence the slack.
    const limit = 0.04 * 1024 * 1024;
    for (const size of sizes.slice(0, -1)) expect(size).toBeGreaterThanOrEqual(limit);
    for (const size of sizes) expect(size).toBeLessThan(limit + 32 * 1024);
    expect(rows.map((r) => r.uuid)).toEqual(records.map((r) => r.uuid));
    expect(first.recordsCompleted).toBe(10_000);

    // Same run again: same keys, same contents.
    await s3.write(cfg, runContext(), inBatches(records, 1000));
    expect(await server.listKeys(server.bucket, 'split/')).toEqual([...manifest.files, manifestKey].sort());

    // A replay that finds fewer rows must not leave the old extra files behind.
    const ctx = runContext();
    await s3.write(cfg, ctx, inBatches(records.slice(0, 1500), 1000));
    const after = JSON.parse((await server.getObject(server.bucket, manifestKey)).toString()) as { files: string[] };
    expect(after.files.length).toBeLessThan(manifest.files.length);
    expect(await server.listKeys(server.bucket, 'split/')).toEqual([...after.files, manifestKey].sort());
    expect((await read(after.files)).length).toBe(1500);
    expect(ctx.logs.some((l) => l.message.includes('left by an earlier attempt'))).toBe(true);
  });

  it('overwrites the single file of a re-run instead of adding one', async () => {
    const cfg = config({ prefix: 'rerun' });
    await s3.write(cfg, runContext(), inBatches(makeRecords(40), 40));
    await s3.write(cfg, runContext(), inBatches(makeRecords(40), 40));
    const keys = await server.listKeys(server.bucket, 'rerun/');
    expect(keys).toHaveLength(1);
    expect(parseLines(await server.getObject(server.bucket, keys[0]))).toHaveLength(40);
  });

  it('streams a file larger than one part as a multipart upload', async () => {
    const records = makeRecords(16_000).map((r) => ({ ...r, properties: { ...r.properties, pad: 'x'.repeat(300) } }));
    await s3.write(config({ prefix: 'multipart' }), runContext(), inBatches(records, 2000));
    const [key] = await server.listKeys(server.bucket, 'multipart/');
    const body = await server.getObject(server.bucket, key);
    expect(body.length).toBeGreaterThan(8 * 1024 * 1024);
    expect(parseLines(body).length).toBe(16_000);
  });

  it('passes server-side encryption through', async () => {
    await s3.write(config({ prefix: 'sse', encryption: 'AES256' }), runContext(), inBatches(makeRecords(10), 10));
    expect(await server.listKeys(server.bucket, 'sse/')).toEqual([`sse/${INTERVAL_BASE}.jsonl`]);
  });

  it('writes no file for an empty interval', async () => {
    const result = await s3.write(config({ prefix: 'empty' }), runContext(), inBatches([], 10));
    expect(result.recordsCompleted).toBe(0);
    expect(await server.listKeys(server.bucket, 'empty/')).toEqual([]);
  });

  it('fails without retry on bad credentials, and never reveals them', async () => {
    const error = await s3
      .write(config({ prefix: 'x', aws_access_key_id: 'AKIAWRONGKEY', aws_secret_access_key: 'wrong-secret-value' }), runContext(), inBatches(makeRecords(5), 5))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as DestinationError).retryable).toBe(false);
    expect((error as DestinationError).message).toMatch(/InvalidAccessKeyId|credentials/);
    expect((error as DestinationError).message).not.toContain('AKIAWRONGKEY');
    expect((error as DestinationError).message).not.toContain('wrong-secret-value');
  });

  it('fails without retry when the bucket does not exist', async () => {
    const error = await s3.write(config({ bucket_name: 'no-such-bucket' }), runContext(), inBatches(makeRecords(5), 5)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as DestinationError).retryable).toBe(false);
    expect((error as DestinationError).message).toContain("'no-such-bucket' does not exist");
  });

  it('fails retryably when the server is down', async () => {
    const endpoint_url = `http://127.0.0.1:${await closedPort()}`;
    const error = await s3.write(config({ endpoint_url }), runContext(), inBatches(makeRecords(5), 5)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as DestinationError).retryable).toBe(true);
    expect((error as DestinationError).message).toBe('Could not connect to the S3 endpoint');
  });
});
