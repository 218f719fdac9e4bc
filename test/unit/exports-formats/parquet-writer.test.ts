import { describe, expect, it } from 'vitest';
import { createRecordWriter } from '../../../src/exports/formats';
import { PARQUET_SCHEMA } from '../../../src/exports/formats/parquet-schema';
import type { Compression } from '../../../src/exports/formats';
import { makeRecords, memorySink } from './records';
import { parquetInfo, readParquet } from './parquet-read';

const CODEC_NAMES: Record<Compression | 'none', string> = {
  none: 'UNCOMPRESSED',
  zstd: 'ZSTD',
  lz4: 'LZ4_RAW',
  snappy: 'SNAPPY',
  gzip: 'GZIP',
  brotli: 'BROTLI',
};

async function writeParquet(records: ReturnType<typeof makeRecords>, compression: Compression | null, rowGroupRows?: number) {
  const { sink, bytes } = memorySink();
  const writer = createRecordWriter(sink, { format: 'Parquet', compression, rowGroupRows });
  for (let i = 0; i < records.length; i += 70) await writer.write(records.slice(i, i + 70));
  await writer.close();
  return { writer, data: bytes() };
}

describe('Parquet writer (read back with hyparquet)', () => {
  for (const compression of ['none', 'zstd', 'lz4', 'snappy', 'gzip', 'brotli'] as const) {
    it(`round-trips records with ${compression}`, async () => {
      const records = makeRecords(300);
      const { writer, data } = await writeParquet(records, compression === 'none' ? null : compression, 128);

      expect(writer.bytesWritten).toBe(data.length);
      expect(writer.recordsWritten).toBe(300);
      const info = parquetInfo(data);
      expect(info.codecs).toEqual([CODEC_NAMES[compression]]);
      expect(info.rowGroups).toBe(3);
      expect(info.columns).toEqual(PARQUET_SCHEMA.fields.map((f) => f.name));

      const rows = await readParquet(data);
      expect(rows).toHaveLength(300);
      rows.forEach((row, i) => {
        const r = records[i];
        expect(row.uuid).toBe(r.uuid);
        expect(row.event).toBe(r.event);
        expect(JSON.parse(String(row.properties))).toEqual(r.properties);
        expect(row.distinct_id).toBe(r.distinct_id);
        expect(Number(row.team_id)).toBe(r.team_id);
        expect((row.timestamp as Date).toISOString()).toBe(r.timestamp);
        expect((row.created_at as Date).toISOString()).toBe(r.created_at);
        expect(row.person_id ?? null).toBe(r.person_id);
        expect(row.person_properties == null ? null : JSON.parse(String(row.person_properties))).toEqual(r.person_properties);
        expect(row.set == null ? null : JSON.parse(String(row.set))).toEqual(r.set);
        expect(row.set_once == null ? null : JSON.parse(String(row.set_once))).toEqual(r.set_once);
        expect(row.elements_chain ?? null).toBe(r.elements_chain);
      });
    });
  }

  it('keeps microseconds and pre-1970 timestamps', async () => {
    const [r] = makeRecords(1);
    const records = [
      { ...r, timestamp: '2024-01-15T10:00:00.123456Z', created_at: '1969-12-31T23:59:59.999500Z' },
    ];
    const { data } = await writeParquet(records, 'zstd');
    // A pass-through timestamp parser exposes the stored int64 microseconds.
    const [row] = await readParquet(data, { timestampFromMicroseconds: (micros: bigint) => micros });
    expect(row.timestamp).toBe(BigInt(Date.UTC(2024, 0, 15, 10)) * 1000n + 123456n);
    expect(row.created_at).toBe(-500n);
  });

  it('writes a valid empty file when closed without rows', async () => {
    const { data } = await writeParquet([], 'snappy');
    expect(parquetInfo(data).columns).toContain('properties');
    expect(await readParquet(data)).toEqual([]);
  });

  it('estimates the size of an open file from the ratio learned on earlier files', async () => {
    const sizeRatio = { value: null };
    const first = createRecordWriter(memorySink().sink, { format: 'Parquet', compression: 'zstd', sizeRatio });
    await first.write(makeRecords(500));
    const rawEstimate = first.bytesWritten;
    expect(rawEstimate).toBeGreaterThan(500 * 100);
    await first.close();
    expect(first.bytesWritten).toBeLessThan(rawEstimate);
    expect(sizeRatio.value).toBeGreaterThan(0);

    const second = createRecordWriter(memorySink().sink, { format: 'Parquet', compression: 'zstd', sizeRatio });
    await second.write(makeRecords(500, { start: 500 }));
    const learnedEstimate = second.bytesWritten;
    await second.close();
    expect(Math.abs(learnedEstimate - second.bytesWritten) / second.bytesWritten).toBeLessThan(0.2);
  });
});
