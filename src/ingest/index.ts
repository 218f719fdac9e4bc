/**
 * Ingestion, the pure part: request body decoding, batch extraction, event normalisation and
 * client address resolution. No clock, no I/O: the caller passes `now`, the uuid factory and
 * the addresses.
 */
export { decodeBody, type DecodeBodyInput } from './decode-body';
export { extractBatch, sentAtFromQuery, type ExtractedBatch } from './extract-batch';
export { normalizeEvent, type NormalizeContext, type NormalizeResult } from './normalize-event';
export { clientIp, normalizeAddress, type HeaderBag } from './client-ip';
export type { IngestionWarning } from './ingestion-warning';
export {
  IngestError,
  invalidApiKey,
  isIngestError,
  malformedRequest,
  missingApiKey,
  noData,
  requestTooLarge,
  type IngestErrorBody,
  type IngestErrorType,
} from './errors';
export { parseClientDate } from './parse-date';
export { resolveTimestamp, type ResolvedTimestamp, type TimestampInput, type TimestampSource } from './timestamp';
