import type { Writable } from 'node:stream';
import type { ExportRecord } from '../destinations/destination';
import type { RecordWriter } from './format';
import type { ParquetCompression, ParquetWriterOptions } from './parquet-writer';

/**
 * The Parquet writer, loaded with the file's first write or close: parquet-wasm instantiates its
 * WebAssembly module on import and apache-arrow is a large module graph, so a service that never
 * writes Parquet (most never do) does not hold them from start-up on.
 */
export class LazyParquetWriter implements RecordWriter {
  private writer: RecordWriter | null = null;
  private loading: Promise<RecordWriter> | null = null;

  constructor(
    private readonly sink: Writable,
    private readonly compression: ParquetCompression,
    private readonly options: ParquetWriterOptions,
  ) {}

  get bytesWritten(): number {
    return this.writer?.bytesWritten ?? 0;
  }

  get recordsWritten(): number {
    return this.writer?.recordsWritten ?? 0;
  }

  async write(records: readonly ExportRecord[]): Promise<void> {
    await (await this.load()).write(records);
  }

  async close(): Promise<void> {
    await (await this.load()).close();
  }

  abort(reason: Error): void {
    if (this.writer) this.writer.abort(reason);
    else this.sink.destroy(reason);
  }

  private load(): Promise<RecordWriter> {
    this.loading ??= import('./parquet-writer').then(({ ParquetWriter }) => (this.writer = new ParquetWriter(this.sink, this.compression, this.options)));
    return this.loading;
  }
}
