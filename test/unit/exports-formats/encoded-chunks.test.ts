// exportToFiles takes a source's pre-encoded JSONLines chunks when offered: same files, same
// bytes, same size-based splitting as from records, and the record iterator is left untouched.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EncodedChunk, RecordBatches, RunContext } from '../../../src/exports/destinations';
import { DirectoryStore } from '../../../src/exports/destinations/file/directory-store';
import { exportToFiles, type FileExportSettings } from '../../../src/exports/destinations/file-export';
import { jsonLines } from '../../../src/exports/formats';
import { tempDir } from '../../support/temp-dir';
import { inBatches, makeRecords } from './records';

const ctx: RunContext = {
  batchExportId: 'e',
  runId: 'r',
  teamId: 1,
  dataIntervalStart: new Date('2024-01-15T10:00:00Z'),
  dataIntervalEnd: new Date('2024-01-15T11:00:00Z'),
  isBackfill: false,
  log: () => {},
};

const records = makeRecords(3_000);

/** Records whose encoded form comes in 100-row chunks; reading the records themselves fails. */
function encodedOnly(): RecordBatches {
  async function* chunks(): AsyncGenerator<EncodedChunk> {
    for (let i = 0; i < records.length; i += 100) {
      yield { bytes: Buffer.from(jsonLines(records.slice(i, i + 100))), records: Math.min(100, records.length - i) };
    }
  }
  async function* refuse(): AsyncGenerator<never> {
    throw new Error('records were read although encoded chunks were offered');
  }
  return Object.assign(refuse(), { encoded: () => chunks() });
}

const files = (dir: string) => readdirSync(dir).filter((f) => !f.startsWith('.')).sort();

describe('exportToFiles with encoded chunks', () => {
  it('writes the bytes the record path writes', async () => {
    const viaChunks = tempDir('enc-a-');
    const viaRecords = tempDir('enc-b-');
    const settings: FileExportSettings = { prefix: '', file_format: 'JSONLines', compression: null, max_file_size_mb: null };
    const a = await exportToFiles(settings, ctx, encodedOnly(), new DirectoryStore(viaChunks));
    const b = await exportToFiles(settings, ctx, inBatches(records, 500), new DirectoryStore(viaRecords));
    expect(a).toEqual(b);
    expect(a.recordsCompleted).toBe(3_000);
    expect(files(viaChunks)).toEqual(files(viaRecords));
    const [name] = files(viaChunks);
    expect(readFileSync(join(viaChunks, name), 'utf8')).toBe(readFileSync(join(viaRecords, name), 'utf8'));
  });

  it('splits by max_file_size_mb between chunks, with a manifest', async () => {
    const dir = tempDir('enc-split-');
    const settings: FileExportSettings = { prefix: '', file_format: 'JSONLines', compression: null, max_file_size_mb: 0.1 };
    const result = await exportToFiles(settings, ctx, encodedOnly(), new DirectoryStore(dir));
    expect(result.recordsCompleted).toBe(3_000);
    const data = files(dir).filter((f) => f.endsWith('.jsonl'));
    expect(data.length).toBeGreaterThan(5);
    // A file closes after the chunk that reaches the limit: it overshoots by less than a chunk.
    for (const f of data) expect(readFileSync(join(dir, f)).length).toBeLessThan(0.1 * 1024 * 1024 + 100 * 600);
    const manifest = JSON.parse(readFileSync(join(dir, files(dir).find((f) => f.endsWith('manifest.json'))!), 'utf8')) as { files: string[] };
    expect(manifest.files).toHaveLength(data.length);
    const text = manifest.files.map((f) => readFileSync(join(dir, f), 'utf8')).join('');
    expect(text).toBe(jsonLines(records));
  });

  it('writes Parquet from records even when chunks are offered', async () => {
    const dir = tempDir('enc-parquet-');
    const settings: FileExportSettings = { prefix: '', file_format: 'Parquet', compression: null, max_file_size_mb: null };
    const batches = Object.assign(inBatches(records.slice(0, 300), 100), { encoded: () => { throw new Error('Parquet must not ask for JSONLines'); } });
    const result = await exportToFiles(settings, ctx, batches, new DirectoryStore(dir));
    expect(result.recordsCompleted).toBe(300);
  });
});
