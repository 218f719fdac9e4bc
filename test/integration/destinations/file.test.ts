import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DestinationError, destinations } from '../../../src/exports/destinations';
import type { ExportRecord, FileConfig } from '../../../src/exports/destinations';
import { readParquet } from '../../unit/exports-formats/parquet-read';
import { exportedJson, inBatches, makeRecords } from '../../unit/exports-formats/records';
import { INTERVAL_BASE, runContext } from './run-context';

const file = destinations.File;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'file-export-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const config = (overrides: Record<string, unknown> = {}) => file.configSchema.parse({ path: dir, ...overrides }) as FileConfig;

/** Every file under `root`, relative, sorted — temp files included, so leftovers show. */
async function tree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort();
}

describe('File destination', () => {
  it('writes JSONLines atomically and a re-run overwrites the same file', async () => {
    const records = makeRecords(300);
    const cfg = config({ prefix: 'team-{table}/{year}-{month}-{day}' });
    const result = await file.write(cfg, runContext(), inBatches(records, 64));

    const expected = `team-events/2024-01-15/${INTERVAL_BASE}.jsonl`;
    expect(await tree(dir)).toEqual([expected]);
    const lines = (await readFile(join(dir, expected), 'utf8')).trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(records.map(exportedJson));
    expect(result).toEqual({ recordsCompleted: 300, bytesExported: Buffer.byteLength(lines.join('\n') + '\n') });

    await file.write(cfg, runContext(), inBatches(records, 100));
    expect(await tree(dir)).toEqual([expected]);
    expect((await readFile(join(dir, expected), 'utf8')).trimEnd().split('\n')).toHaveLength(300);
  });

  it('writes Parquet that hyparquet (a different implementation) reads back', async () => {
    const records = makeRecords(500);
    await file.write(config({ file_format: 'Parquet', compression: 'zstd' }), runContext(), inBatches(records, 128));
    const [name] = await tree(dir);
    expect(name).toBe(`${INTERVAL_BASE}.parquet.zst`);
    const rows = await readParquet(await readFile(join(dir, name)));
    expect(rows).toHaveLength(500);
    expect(rows.map((r) => r.uuid)).toEqual(records.map((r) => r.uuid));
    expect(rows.map((r) => r.event)).toEqual(records.map((r) => r.event));
    expect(JSON.parse(String(rows[10].person_properties))).toEqual(records[10].person_properties);
    expect((rows[499].created_at as Date).toISOString()).toBe(records[499].created_at);
  });

  it('splits Parquet by size with a manifest', async () => {
    const records = makeRecords(3000);
    await file.write(config({ file_format: 'Parquet', compression: 'snappy', max_file_size_mb: 0.1 }), runContext(), inBatches(records, 500));
    const manifest = JSON.parse(await readFile(join(dir, `${INTERVAL_BASE}_manifest.json`), 'utf8')) as { files: string[] };
    expect(manifest.files.length).toBeGreaterThan(1);
    expect(await tree(dir)).toEqual([...manifest.files, `${INTERVAL_BASE}_manifest.json`].sort());
    const uuids: unknown[] = [];
    for (const [i, name] of manifest.files.entries()) {
      expect(name).toBe(`${INTERVAL_BASE}-${i}.parquet.sz`);
      const bytes = await readFile(join(dir, name));
      expect(bytes.length).toBeLessThan(0.1 * 1024 * 1024 * 1.1);
      uuids.push(...(await readParquet(bytes)).map((r) => r.uuid));
    }
    expect(uuids).toEqual(records.map((r) => r.uuid));
  });

  it('leaves neither a partial file nor a temp file when the run fails midway', async () => {
    async function* failing(): AsyncGenerator<ExportRecord[]> {
      yield makeRecords(100);
      throw new Error('source went away');
    }
    const error = await file.write(config(), runContext(), failing()).catch((e: unknown) => e);
    // The record source's own error comes back as it was, not dressed up as a destination failure.
    expect(error).not.toBeInstanceOf(DestinationError);
    expect((error as Error).message).toBe('source went away');
    expect(await tree(dir)).toEqual([]);
  });

  it('refuses a prefix that climbs out of the directory (a stored config is validated again)', async () => {
    const stored = { path: dir, prefix: 'a/../../escape' } as unknown as FileConfig;
    const error = await file.write(stored, runContext(), inBatches(makeRecords(2), 2)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as DestinationError).retryable).toBe(false);
    expect((error as Error).message).toContain("prefix: Must not contain '..' segments");
    expect(existsSync(join(dir, '..', '..', 'escape'))).toBe(false);
  });
});
