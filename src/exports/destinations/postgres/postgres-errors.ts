import { DestinationError, nonRetryableError, retryableError } from '../destination';
import { describeError, isTransientNetworkError } from '../network-errors';

/** SQLSTATE classes and codes a later attempt can get past. */
const RETRYABLE_CLASSES = ['08', '53', '57'];
const RETRYABLE_CODES = new Set(['40001', '40P01', '55P03']);

const WHY: Record<string, string> = {
  '28P01': 'authentication failed',
  '28000': 'authentication failed',
  '3D000': 'the database does not exist',
  '3F000': 'the schema does not exist',
  '42501': 'permission denied',
};

/** pg reports a dropped connection without a SQLSTATE, only in the message. */
const DROPPED = /Connection terminated|timeout expired|connection timeout|server closed the connection/i;

export function toPostgresError(err: unknown, target: string): DestinationError {
  if (err instanceof DestinationError) return err;
  const sqlstate = (err as { code?: unknown } | null)?.code;
  const detail = describeError(err);
  if (typeof sqlstate === 'string' && /^[0-9A-Z]{5}$/.test(sqlstate)) {
    const retryable = RETRYABLE_CLASSES.includes(sqlstate.slice(0, 2)) || RETRYABLE_CODES.has(sqlstate);
    const why = WHY[sqlstate] ? `${WHY[sqlstate]}: ` : '';
    const message = `PostgreSQL export to ${target} failed (SQLSTATE ${sqlstate}): ${why}${detail}`;
    return retryable ? retryableError(message, err) : nonRetryableError(message, err);
  }
  if (isTransientNetworkError(err) || (err instanceof Error && DROPPED.test(err.message))) {
    return retryableError(`Could not reach PostgreSQL at ${target}: ${detail}`, err);
  }
  return nonRetryableError(`PostgreSQL export to ${target} failed: ${detail}`, err);
}
