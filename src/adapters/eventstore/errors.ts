import {
  CancelledError,
  convertToCommandError,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NotLeaderError,
  TimeoutError,
  UnavailableError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { WrongExpectedRevisionError, type ExpectedRevision } from '../../store/event-log';
import { toPortCurrentRevision } from './revisions';

/**
 * Some calls (appendToStream among them) reject with the raw gRPC error rather than the client's
 * class for it: the client's own conversion gives both paths one vocabulary.
 */
function asCommandError(err: unknown): unknown {
  if (err === null || typeof err !== 'object') return err;
  try {
    return convertToCommandError(err as Error);
  } catch {
    return err;
  }
}

/** What a cluster's discovery says when no node answers its gossip. */
const DISCOVERY_FAILED = /^Failed to discover after \d+ attempts/;

/**
 * Whether an error says the server, or the way to it, is gone, rather than that a request was
 * refused: no connection, a deadline passed, the node is no longer the leader (the next call
 * reconnects to the new one), the server cancelled the call while shutting down, or a write timed
 * out inside the cluster (it may or may not have committed: it is not acknowledged either way).
 */
export function isUnreachable(err: unknown): boolean {
  const e = asCommandError(err);
  if (
    e instanceof UnavailableError ||
    e instanceof DeadlineExceededError ||
    e instanceof NotLeaderError ||
    e instanceof CancelledError ||
    e instanceof TimeoutError
  ) {
    return true;
  }
  const message = (e as { message?: unknown } | null)?.message;
  return typeof message === 'string' && DISCOVERY_FAILED.test(message);
}

/**
 * The server refused an append larger than its MaxAppendSize (1 MiB unless configured). One
 * append is one atomic call of the port, so it is not split: the server's limit must hold the
 * largest append the service makes (an ingestion batch up to BATCH_BODY_LIMIT).
 */
export class AppendTooLargeError extends Error {
  constructor(
    readonly streamId: string,
    readonly maxAppendSize: number,
  ) {
    super(`KurrentDB refused an append to ${streamId}: larger than its MaxAppendSize of ${maxAppendSize} bytes; raise the server's MaxAppendSize (up to 16 MiB) to hold the service's largest append`);
    this.name = 'AppendTooLargeError';
  }
}

/**
 * An append's error in the port's terms: the client's WrongExpectedVersionError becomes the port's
 * typed conflict (with the expectation as the caller gave it); anything else is returned as is.
 */
export function translateAppendError(err: unknown, streamId: string, expected: ExpectedRevision): unknown {
  const e = asCommandError(err);
  if (e instanceof WrongExpectedVersionError) return new WrongExpectedRevisionError(streamId, expected, toPortCurrentRevision(e.actualVersion));
  if (e instanceof MaxAppendSizeExceededError) return new AppendTooLargeError(streamId, e.maxAppendSize);
  return err;
}
