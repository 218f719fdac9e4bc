import type { EncodedChunk, ExportRecord } from '../destinations/destination';

export const FILE_FORMATS = ['JSONLines', 'Parquet'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

export const COMPRESSIONS = ['gzip', 'brotli', 'zstd', 'lz4', 'snappy'] as const;
export type Compression = (typeof COMPRESSIONS)[number];

/**
 * What this build can actually write. JSONLines has no zstd/lz4/snappy because Node 20's zlib
 * ships only gzip and brotli; Parquet codecs all come from parquet-wasm (arrow-rs compiled to
 * WebAssembly), and lz4 is written as Parquet's LZ4_RAW codec, the non-deprecated one.
 */
export const SUPPORTED_COMPRESSIONS: Readonly<Record<FileFormat, readonly Compression[]>> = {
  JSONLines: ['gzip', 'brotli'],
  Parquet: ['zstd', 'lz4', 'snappy', 'gzip', 'brotli'],
};

export const FORMAT_EXTENSIONS: Readonly<Record<FileFormat, string>> = {
  JSONLines: 'jsonl',
  Parquet: 'parquet',
};

/** PostHog's suffixes, kept so that keys match what its S3 exports produce. */
export const COMPRESSION_EXTENSIONS: Readonly<Record<Compression, string>> = {
  gzip: 'gz',
  snappy: 'sz',
  brotli: 'br',
  zstd: 'zst',
  lz4: 'lz4',
};

export const isCompressionSupported = (format: FileFormat, compression: Compression | null): boolean =>
  compression === null || SUPPORTED_COMPRESSIONS[format].includes(compression);

/** Streams records of one file into a byte sink in one format. */
export interface RecordWriter {
  /** Resolves once the sink has room for more (backpressure), rejects if the sink failed. */
  write(records: readonly ExportRecord[]): Promise<void>;
  /**
   * Writes rows the source already serialised in this writer's format (JSONLines only), with
   * the same backpressure as `write`. Absent on writers that cannot take encoded rows.
   */
  writeEncoded?(chunk: EncodedChunk): Promise<void>;
  /**
   * Bytes of the file so far, after compression; exact once closed. While a Parquet file is
   * open this is an estimate (see SizeRatio), so callers can split files by size.
   */
  readonly bytesWritten: number;
  readonly recordsWritten: number;
  /** Flushes, ends the sink and resolves once the sink has finished. */
  close(): Promise<void>;
  /** Tears the pipeline down; the sink is destroyed with `reason`. */
  abort(reason: Error): void;
}

export interface WriterOptions {
  format: FileFormat;
  compression: Compression | null;
}
