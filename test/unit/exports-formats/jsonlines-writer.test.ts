import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRecordWriter, jsonLine } from '../../../src/exports/formats';
import { exportedJson, makeRecords, memorySink } from './records';

const decoders = { none: (b: Buffer) => b, gzip: gunzipSync, brotli: brotliDecompressSync } as const;

describe('JSONLines writer', () => {
  for (const compression of ['none', 'gzip', 'brotli'] as const) {
    it(`round-trips records (${compression})`, async () => {
      const records = makeRecords(250);
      const { sink, bytes } = memorySink();
      const writer = createRecordWriter(sink, { format: 'JSONLines', compression: compression === 'none' ? null : compression });
      await writer.write(records.slice(0, 100));
      await writer.write([]);
      await writer.write(records.slice(100));
      await writer.close();

      const raw = bytes();
      expect(writer.bytesWritten).toBe(raw.length);
      expect(writer.recordsWritten).toBe(250);
      const lines = decoders[compression](raw).toString('utf8').split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.map((l) => JSON.parse(l))).toEqual(records.map(exportedJson));
    });
  }

  it('writes the exported fields in a fixed order, absent optionals as null', () => {
    const [r] = makeRecords(1, { start: 1 });
    const line = jsonLine({ ...r, person_id: undefined as unknown as null });
    expect(Object.keys(JSON.parse(line))).toEqual([
      'uuid', 'event', 'properties', 'distinct_id', 'team_id', 'timestamp', 'created_at',
      'person_id', 'person_properties', 'set', 'set_once', 'elements_chain',
    ]);
    expect(JSON.parse(line).person_id).toBeNull();
    expect(line.endsWith('}\n')).toBe(true);
  });

  for (const compression of [null, 'gzip'] as const) {
    it(`rejects writes once the sink has failed instead of hanging (${compression ?? 'none'})`, async () => {
      const sink = new Writable({
        highWaterMark: 1,
        write(_chunk, _encoding, callback) {
          callback(new Error('disk on fire'));
        },
      });
      const writer = createRecordWriter(sink, { format: 'JSONLines', compression });
      const attempt = async () => {
        for (let i = 0; i < 50; i++) await writer.write(makeRecords(200, { start: i * 200 }));
        await writer.close();
      };
      await expect(attempt()).rejects.toThrow('disk on fire');
    });
  }

  it('refuses compressions JSONLines cannot write', () => {
    expect(() => createRecordWriter(memorySink().sink, { format: 'JSONLines', compression: 'zstd' })).toThrow(
      /not supported for JSONLines; use one of: gzip, brotli/,
    );
  });
});
