import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import {
  Compression as Codec,
  Table as WasmTable,
  WriterPropertiesBuilder,
  transformParquetStream,
} from 'parquet-wasm';
import type { RecordBatch as WasmRecordBatch, WriterProperties } from 'parquet-wasm';
import type { ExportRecord } from '../destinations/destination';
import { ByteCounter } from './byte-counter';
import type { RecordWriter } from './format';
import { ColumnBuffer } from './parquet-columns';

export type ParquetCompression = 'zstd' | 'lz4' | 'snappy' | 'gzip' | 'brotli' | null;

const CODECS: Record<NonNullable<ParquetCompression> | 'none', Codec> = {
  none: Codec.UNCOMPRESSED,
  zstd: Codec.ZSTD,
  lz4: Codec.LZ4_RAW,
  snappy: Codec.SNAPPY,
  gzip: Codec.GZIP,
  brotli: Codec.BROTLI,
};

/**
 * Output bytes per raw input byte, learned from finished files. The wasm writer emits bytes in
 * chunks that do not line up with row groups, so the size of a file in progress cannot be read
 * off its output; it is estimated from the raw bytes and the ratio of earlier files instead.
 */
export interface SizeRatio {
  value: number | null;
}

export interface ParquetWriterOptions {
  /** Rows per row group; bounds the memory a file in progress holds. */
  rowGroupRows?: number;
  /** Shared by the files of one export so that later files are split closer to the limit. */
  sizeRatio?: SizeRatio;
}

function writerProperties(compression: ParquetCompression, rowGroupRows: number): WriterProperties {
  return new WriterPropertiesBuilder()
    .setCompression(CODECS[compression ?? 'none'])
    // Equal to the batches we hand over, so each full batch is flushed as one row group at once.
    .setMaxRowGroupSize(rowGroupRows)
    .setCreatedBy('eventful-analytics batch export')
    .build();
}

/**
 * Parquet through parquet-wasm's streaming writer: rows are buffered per row group on the JS
 * side, converted to an Arrow record batch and handed to the wasm writer, whose output streams
 * into the sink, so a file in progress holds at most about two row groups in memory.
 */
export class ParquetWriter implements RecordWriter {
  private readonly rows = new ColumnBuffer();
  private readonly counter = new ByteCounter();
  private readonly rowGroupRows: number;
  private controller: ReadableStreamDefaultController<WasmRecordBatch> | null = null;
  private done: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private readonly sizeRatio: SizeRatio;
  private rawBytes = 0;
  private records = 0;
  private finished = false;

  constructor(
    private readonly sink: Writable,
    private readonly compression: ParquetCompression,
    options: ParquetWriterOptions = {},
  ) {
    this.rowGroupRows = options.rowGroupRows ?? 10_000;
    this.sizeRatio = options.sizeRatio ?? { value: null };
  }

  get recordsWritten(): number {
    return this.records;
  }

  get bytesWritten(): number {
    const written = this.counter.bytes;
    if (this.finished) return written;
    // With nothing learned yet, assume no compression: the first file then errs on the small side.
    return Math.max(written, Math.ceil(this.rawBytes * (this.sizeRatio.value ?? 1)));
  }

  async write(records: readonly ExportRecord[]): Promise<void> {
    for (let i = 0; i < records.length; i++) {
      const before = this.rows.rawBytes;
      this.rows.append(records[i]);
      this.rawBytes += this.rows.rawBytes - before;
      this.records++;
      if (this.rows.length >= this.rowGroupRows) await this.flushRowGroup();
    }
  }

  async close(): Promise<void> {
    // A file with no rows still gets its schema, so readers see a valid empty file.
    if (this.rows.length > 0 || !this.done) await this.flushRowGroup();
    this.controller?.close();
    await this.done;
    this.finished = true;
    if (this.rawBytes > 0) this.sizeRatio.value = this.counter.bytes / this.rawBytes;
  }

  abort(reason: Error): void {
    try {
      this.controller?.error(reason);
    } catch {
      // Already closed or errored: the sink below is what matters.
    }
    this.sink.destroy(reason);
  }

  private async flushRowGroup(): Promise<void> {
    const table = WasmTable.fromIPCStream(this.rows.takeIpc());
    const batches = table.recordBatches();
    table.free();
    if (!this.done) {
      this.start(batches);
      return;
    }
    for (const batch of batches) this.controller?.enqueue(batch);
    await this.roomInInput();
  }

  /** The wasm writer reads its schema from the first batch, so the stream starts with one. */
  private start(first: WasmRecordBatch[]): void {
    const input = new ReadableStream<WasmRecordBatch>(
      {
        start: (controller) => {
          this.controller = controller;
          for (const batch of first) controller.enqueue(batch);
        },
        pull: () => {
          this.wake?.();
          this.wake = null;
        },
      },
      { highWaterMark: 1 },
    );
    const output = transformParquetStream(input, writerProperties(this.compression, this.rowGroupRows));
    this.done = output.then((bytes: ReadableStream<Uint8Array>) =>
      pipeline(Readable.fromWeb(bytes as NodeReadableStream<Uint8Array>), this.counter, this.sink),
    );
    this.done.catch(() => undefined);
  }

  private async roomInInput(): Promise<void> {
    const done = this.done;
    while (done && (this.controller?.desiredSize ?? 1) <= 0) {
      await Promise.race([new Promise<void>((resolve) => (this.wake = resolve)), done]);
    }
  }
}
