import { DestinationError, nonRetryableError, retryableError } from '../destination';
import { describeError, isTransientNetworkError } from '../network-errors';

interface S3ErrorLike {
  name?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

const RETRYABLE_CODES = new Set(['SlowDown', 'InternalError', 'ServiceUnavailable', 'RequestTimeout', 'RequestTimeTooSkewed']);
const CREDENTIAL_CODES = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'InvalidToken', 'ExpiredToken']);

/** Maps an SDK or socket failure to retryable (network, 5xx, throttling) or not (4xx). */
export function toS3Error(err: unknown, bucket: string): DestinationError {
  if (err instanceof DestinationError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as S3ErrorLike;
  const code = e.Code ?? e.name ?? 'Error';
  const status = e.$metadata?.httpStatusCode;
  const detail = describeError(err);

  if (code === 'NoSuchBucket') return nonRetryableError(`S3 bucket '${bucket}' does not exist: ${detail}`, err);
  if (CREDENTIAL_CODES.has(code) || status === 401 || status === 403) {
    return nonRetryableError(`S3 refused the credentials or permissions for bucket '${bucket}' (${code}): ${detail}`, err);
  }
  if (RETRYABLE_CODES.has(code) || (status !== undefined && (status >= 500 || status === 429))) {
    return retryableError(`S3 is temporarily unavailable (${code}${status ? `, HTTP ${status}` : ''}): ${detail}`, err);
  }
  if (isTransientNetworkError(err)) return retryableError(`Could not reach the S3 endpoint: ${detail}`, err);
  return nonRetryableError(`S3 export failed (${code}${status ? `, HTTP ${status}` : ''}): ${detail}`, err);
}
