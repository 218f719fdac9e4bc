import { describe, expect, it } from 'vitest';
import { FileNaming, pythonIsoFormat, renderPrefix } from '../../../src/exports/destinations/file-export';
import type { FileExportSettings } from '../../../src/exports/destinations/file-export';

const start = new Date('2024-03-05T07:00:00Z');
const end = new Date('2024-03-05T08:05:09Z');
const settings = (overrides: Partial<FileExportSettings> = {}): FileExportSettings => ({
  prefix: '',
  file_format: 'JSONLines',
  compression: null,
  max_file_size_mb: null,
  ...overrides,
});

describe('file naming', () => {
  it("prints interval bounds like Python's isoformat", () => {
    expect(pythonIsoFormat(start)).toBe('2024-03-05T07:00:00+00:00');
    expect(pythonIsoFormat(new Date('2024-03-05T07:00:00.250Z'))).toBe('2024-03-05T07:00:00.250000+00:00');
  });

  it('renders date placeholders from the interval end', () => {
    expect(renderPrefix('{year}/{month}/{day}/{hour}:{minute}:{second}/{table}', start, end)).toBe('2024/03/05/08:05:09/events');
    expect(renderPrefix('{data_interval_start}..{data_interval_end}', start, end)).toBe(
      '2024-03-05T07:00:00+00:00..2024-03-05T08:05:09+00:00',
    );
  });

  it('builds PostHog-style keys with format and compression suffixes', () => {
    const base = '2024-03-05T07:00:00+00:00-2024-03-05T08:05:09+00:00';
    expect(new FileNaming(settings(), start, end).dataKey(0)).toBe(`${base}.jsonl`);
    expect(new FileNaming(settings({ prefix: '/a/b/', compression: 'brotli' }), start, end).dataKey(0)).toBe(`a/b/${base}.jsonl.br`);
    const parquet = new FileNaming(settings({ prefix: 'p', file_format: 'Parquet', compression: 'snappy', max_file_size_mb: 5 }), start, end);
    expect([parquet.dataKey(0), parquet.dataKey(12)]).toEqual([`p/${base}-0.parquet.sz`, `p/${base}-12.parquet.sz`]);
    expect(parquet.manifestKey).toBe(`p/${base}_manifest.json`);
  });

  it('recognises only numbered files of the same run and format', () => {
    const naming = new FileNaming(settings({ compression: 'gzip', max_file_size_mb: 1 }), start, end);
    expect(naming.indexOf(naming.dataKey(3))).toBe(3);
    expect(naming.indexOf(naming.manifestKey)).toBeNull();
    expect(naming.indexOf(naming.dataKey(3).replace('.gz', ''))).toBeNull();
    expect(naming.indexOf(naming.dataKey(3).replace('-3', '-3x'))).toBeNull();
  });
});
