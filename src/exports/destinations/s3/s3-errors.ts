import { DestinationError, nonRetryableError, retryableError } from '../destination';
import { isTransientNetworkError } from '../network-errors';

interface S3ErrorLike {
  name?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

const RETRYABLE_CODES = new Set(['SlowDown', 'InternalError', 'ServiceUnavailable', 'RequestTimeout', 'RequestTimeTooSkewed']);
const CREDENTIAL_CODES = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'InvalidToken', 'ExpiredToken']);

/** S3's error codes are short identifiers; anything else is not repeated (it may be a server's text). */
const codeOf = (e: S3ErrorLike): string => {
  const code = e.Code ?? e.name ?? 'Error';
  return /^[A-Za-z0-9.]{1,64}$/.test(code) ? code : 'Error';
};

/**
 * Maps an SDK or socket failure to retryable (network, 5xx, throttling) or not (4xx). Messages
 * carry the S3 error code and HTTP status only: the server's own message text is not repeated,
 * and every connection failure reads the same, so a run cannot tell a closed port from a slow one.
 */
export function toS3Error(err: unknown, bucket: string): DestinationError {
  if (err instanceof DestinationError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as S3ErrorLike;
  const code = codeOf(e);
  const status = e.$metadata?.httpStatusCode;
  const where = `${code}${status ? `, HTTP ${status}` : ''}`;

  if (code === 'NoSuchBucket') return nonRetryableError(`S3 bucket '${bucket}' does not exist (${where})`, err);
  if (CREDENTIAL_CODES.has(code) || status === 401 || status === 403) {
    return nonRetryableError(`S3 refused the credentials or permissions for bucket '${bucket}' (${where})`, err);
  }
  if (RETRYABLE_CODES.has(code) || (status !== undefined && (status >= 500 || status === 429))) {
    return retryableError(`S3 is temporarily unavailable (${where})`, err);
  }
  if (status === undefined && isTransientNetworkError(err)) return retryableError('Could not connect to the S3 endpoint', err);
  return nonRetryableError(`S3 export failed (${where})`, err);
}
