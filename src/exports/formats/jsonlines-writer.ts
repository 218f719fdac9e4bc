import { finished, pipeline } from 'node:stream/promises';
import { constants, createBrotliCompress, createGzip } from 'node:zlib';
import type { Transform, Writable } from 'node:stream';
import type { EncodedChunk, ExportRecord } from '../destinations/destination';
import { ByteCounter } from './byte-counter';
import type { RecordWriter } from './format';
import { jsonLines } from './json-line';
import { feed } from './stream-feed';

export type JsonLinesCompression = 'gzip' | 'brotli' | null;

/**
 * Brotli's default quality (11) runs at a few MB/s, far too slow for exports; 5 keeps most of
 * the ratio at gzip-like speed.
 */
const BROTLI_QUALITY = 5;

/**
 * Rows serialised per chunk. Whole 10k-row batches as one string measured ~1.5x slower: multi-MB
 * strings land in V8's large-object space and are copied again when encoded to UTF-8.
 */
const ROWS_PER_CHUNK = 512;

function compressor(compression: JsonLinesCompression): Transform | null {
  if (compression === 'gzip') return createGzip();
  if (compression === 'brotli') {
    return createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } });
  }
  return null;
}

/** Newline-delimited JSON, one object per record, streamed through an optional compressor. */
export class JsonLinesWriter implements RecordWriter {
  /** Counts compressed output; without compression the writer counts what it hands the sink. */
  private readonly counter: ByteCounter | null;
  private readonly input: Writable;
  private readonly done: Promise<void>;
  private uncompressedBytes = 0;
  private records = 0;

  constructor(sink: Writable, compression: JsonLinesCompression) {
    const zip = compressor(compression);
    if (zip) {
      this.counter = new ByteCounter();
      this.input = zip;
      this.done = pipeline(zip, this.counter, sink);
    } else {
      this.counter = null;
      this.input = sink;
      this.done = finished(sink);
    }
    // Awaited in write/close; this only keeps an early failure from being reported as unhandled.
    this.done.catch(() => undefined);
  }

  get bytesWritten(): number {
    return this.counter ? this.counter.bytes : this.uncompressedBytes;
  }

  get recordsWritten(): number {
    return this.records;
  }

  async write(records: readonly ExportRecord[]): Promise<void> {
    for (let i = 0; i < records.length; i += ROWS_PER_CHUNK) {
      const slice = records.length <= ROWS_PER_CHUNK ? records : records.slice(i, i + ROWS_PER_CHUNK);
      const chunk = Buffer.from(jsonLines(slice));
      this.uncompressedBytes += chunk.length;
      await feed(this.input, chunk, this.done);
      this.records += slice.length;
    }
  }

  async writeEncoded(chunk: EncodedChunk): Promise<void> {
    this.uncompressedBytes += chunk.bytes.length;
    await feed(this.input, chunk.bytes, this.done);
    this.records += chunk.records;
  }

  async close(): Promise<void> {
    this.input.end();
    await this.done;
  }

  abort(reason: Error): void {
    this.input.destroy(reason);
  }
}
