import type { Writable } from 'node:stream';
import { isCompressionSupported, SUPPORTED_COMPRESSIONS, type RecordWriter, type WriterOptions } from './format';
import { JsonLinesWriter, type JsonLinesCompression } from './jsonlines-writer';
import { LazyParquetWriter } from './lazy-parquet-writer';
import type { ParquetCompression, ParquetWriterOptions } from './parquet-writer';

/** A writer for one file; it owns `sink` and ends it on close. */
export function createRecordWriter(sink: Writable, options: WriterOptions & ParquetWriterOptions): RecordWriter {
  const { format, compression } = options;
  if (!isCompressionSupported(format, compression)) {
    throw new Error(
      `compression '${compression}' is not supported for ${format}; use one of: ${SUPPORTED_COMPRESSIONS[format].join(', ')}`,
    );
  }
  if (format === 'JSONLines') return new JsonLinesWriter(sink, compression as JsonLinesCompression);
  return new LazyParquetWriter(sink, compression as ParquetCompression, options);
}
