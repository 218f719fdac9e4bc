import { ANY, NO_STREAM, STREAM_EXISTS, type AppendExpectedRevision, type CurrentRevision } from '@eventstore/db-client';
import type { ExpectedRevision } from '../../store/event-log';

/** The client's expectation for the port's: the names are the same, revisions are bigints there. */
export function toClientExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  if (!Number.isSafeInteger(expected) || expected < 0) throw new RangeError(`expected revision ${expected} is not a stream revision`);
  return BigInt(expected);
}

/** A revision from the server as the port's number (revisions count events of one stream, far below 2^53). */
export function toPortRevision(revision: bigint): number {
  if (revision < 0n || revision > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`stream revision ${revision} is out of the port's range`);
  return Number(revision);
}

/** The client's expectation, as reported in a conflict, back in the port's terms. */
export function toPortExpectedRevision(expected: AppendExpectedRevision): ExpectedRevision {
  return typeof expected === 'bigint' ? toPortRevision(expected) : expected;
}

/** The stream's current revision in a conflict: `no_stream`, or its last revision. */
export function toPortCurrentRevision(current: CurrentRevision): number | 'no_stream' {
  return current === NO_STREAM ? 'no_stream' : toPortRevision(current);
}
