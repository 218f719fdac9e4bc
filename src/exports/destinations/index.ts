export { DestinationError, nonRetryableError, policyOf, retryableError } from './destination';
export type { Destination, EncodedChunk, ExportRecord, LogLevel, RawJsonFields, RecordBatches, RunContext, WriteResult } from './destination';
export {
  DESTINATION_TYPES,
  checkDestinationTarget,
  destinations,
  getDestination,
  parseDestinationConfig,
  redactConfig,
  validateDestinationConfig,
} from './registry';
export { mergeConfig, scrubSecrets, secretFieldsOf } from './redact';
export type { ConfigIssue, ConfigValidation } from './config-schema';
export type { S3Config } from './s3/s3-config';
export type { PostgresConfig } from './postgres/postgres-config';
export type { HttpConfig } from './http/http-config';
export type { FileConfig } from './file/file-config';
