import { DestinationError, nonRetryableError, retryableError } from '../destination';
import { isTransientNetworkError } from '../network-errors';

/** SQLSTATE classes and codes a later attempt can get past. */
const RETRYABLE_CLASSES = ['08', '53', '57'];
const RETRYABLE_CODES = new Set(['40001', '40P01', '55P03']);

/** A fixed reason per SQLSTATE (class): the server's own message text is not repeated. */
const WHY: Record<string, string> = {
  '28P01': 'authentication failed',
  '28000': 'authentication failed',
  '3D000': 'the database does not exist',
  '3F000': 'the schema does not exist',
  '42501': 'permission denied',
  '42P01': 'the table does not exist',
  '23505': 'duplicate key',
  '40001': 'serialization failure',
  '40P01': 'deadlock detected',
  '55P03': 'lock not available',
};
const WHY_CLASS: Record<string, string> = {
  '08': 'connection exception',
  '22': 'data exception',
  '23': 'integrity constraint violation',
  '42': 'syntax error or access rule violation',
  '53': 'insufficient resources',
  '57': 'operator intervention',
};

/** pg reports a dropped connection without a SQLSTATE, only in the message. */
const DROPPED = /Connection terminated|timeout expired|connection timeout|server closed the connection/i;

/**
 * Retryable (connection trouble, resources, serialization) or not. Messages carry the SQLSTATE
 * and a fixed reason, never the server's text, and every connection failure reads the same.
 */
export function toPostgresError(err: unknown, target: string): DestinationError {
  if (err instanceof DestinationError) return err;
  if ((err as { code?: unknown } | null)?.code === 'EXPORT_TARGET_REFUSED') return nonRetryableError(`PostgreSQL export to ${target} refused`, err);
  const sqlstate = (err as { code?: unknown } | null)?.code;
  if (typeof sqlstate === 'string' && /^[0-9A-Z]{5}$/.test(sqlstate)) {
    const retryable = RETRYABLE_CLASSES.includes(sqlstate.slice(0, 2)) || RETRYABLE_CODES.has(sqlstate);
    const why = WHY[sqlstate] ?? WHY_CLASS[sqlstate.slice(0, 2)] ?? 'the server refused the statement';
    const message = `PostgreSQL export to ${target} failed (SQLSTATE ${sqlstate}): ${why}`;
    return retryable ? retryableError(message, err) : nonRetryableError(message, err);
  }
  if (isTransientNetworkError(err) || (err instanceof Error && DROPPED.test(err.message))) {
    return retryableError(`Could not connect to PostgreSQL at ${target}`, err);
  }
  return nonRetryableError(`PostgreSQL export to ${target} failed`, err);
}
