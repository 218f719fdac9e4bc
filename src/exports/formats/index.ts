export {
  COMPRESSIONS,
  COMPRESSION_EXTENSIONS,
  FILE_FORMATS,
  FORMAT_EXTENSIONS,
  SUPPORTED_COMPRESSIONS,
  isCompressionSupported,
} from './format';
export type { Compression, FileFormat, RecordWriter, WriterOptions } from './format';
export { createRecordWriter } from './create-writer';
export { EXPORTED_FIELDS, JSON_FIELDS } from './exported-row';
export type { ExportedField } from './exported-row';
export { jsonLine, jsonLines } from './json-line';
export { JsonLinesWriter } from './jsonlines-writer';
export type { JsonLinesCompression } from './jsonlines-writer';
// ParquetWriter and PARQUET_SCHEMA are imported from their own files: re-exported here, they
// would load parquet-wasm and apache-arrow with every import of the formats (see LazyParquetWriter).
export type { ParquetCompression, ParquetWriterOptions, SizeRatio } from './parquet-writer';
