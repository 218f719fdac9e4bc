import type { Position } from '@eventstore/db-client';

/*
 * Port positions over `$all` commit positions.
 *
 * A `$all` commit position is the byte offset of an event's record in the server's transaction
 * log: increasing in commit order, never dense. The port position of an event is its commit
 * position, as a number while that is a safe integer (2^53 - 1 bytes of log, about 9 PB). The server
 * cannot start a read at an arbitrary offset (`c + 1` points into the middle of the record at `c`,
 * and the server answers "invalid position"), and it need not: the port reads after a position it
 * handed out (see EventLog in src/store/event-log.ts), which here is a read from that event's own
 * record, dropping it. The log begins with the server's epoch record at 0, so every event is above
 * 0, the port's "before everything".
 *
 * Every event written by appendToStream is its own implicit transaction member with commit ==
 * prepare position; events of a legacy explicit transaction share one commit position and cannot
 * be told apart by it, so they are refused rather than given equal positions.
 */

/** The highest commit position a port position (a number) holds exactly. */
export const MAX_COMMIT_POSITION = BigInt(Number.MAX_SAFE_INTEGER);

export class PositionRangeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PositionRangeError';
  }
}

/** The port position of the event whose `$all` position is `position`. */
export function toPortPosition(position: Position): number {
  if (position.commit !== position.prepare) {
    throw new PositionRangeError(
      `$all event at commit ${position.commit} / prepare ${position.prepare} belongs to an explicit transaction: its commit position is not its own, so the event log port cannot order it`,
    );
  }
  if (position.commit <= 0n) throw new PositionRangeError(`$all commit position ${position.commit} is not above 0, where the event log port's positions start`);
  if (position.commit > MAX_COMMIT_POSITION) {
    throw new PositionRangeError(
      `$all commit position ${position.commit} is past what the event log port's number positions can hold (commit positions up to ${MAX_COMMIT_POSITION})`,
    );
  }
  return Number(position.commit);
}

/** The `$all` position of the event at a port position this adapter handed out. */
export function toEventPosition(portPosition: number): Position {
  if (!Number.isSafeInteger(portPosition) || portPosition <= 0) throw new PositionRangeError(`${portPosition} is not the position of an event of this log`);
  const commit = BigInt(portPosition);
  return { commit, prepare: commit };
}

/**
 * Where a forward read of `$all` starts for the port's exclusive `afterPosition`: the start of the
 * log, or the record of the event at that position, which the server reads inclusively, so it
 * comes back first and is dropped.
 */
export type ReadStart = { from: 'start' } | { after: Position };

export function readStartOf(afterPosition: number | undefined): ReadStart {
  if (afterPosition === undefined || afterPosition <= 0) return { from: 'start' };
  return { after: toEventPosition(afterPosition) };
}

export const samePosition = (a: Position, b: Position): boolean => a.commit === b.commit && a.prepare === b.prepare;

/** Above any real log offset: the server sends 2^64 - 1 (an unsigned -1) for "no position". */
const NO_POSITION_FLOOR = 1n << 63n;

/**
 * The port position of an event read from its stream. Servers that do not know a stream event's
 * commit position send "none" for it, but still its prepare position, the offset of its record:
 * for an event appended by appendToStream the two are the same (the server's `$all` reader gives
 * such an event the commit position of its own record).
 */
export function streamEventPortPosition(position: Position | undefined): number {
  if (position === undefined) throw new PositionRangeError('the server sent a stream event without its log position');
  if (position.commit < NO_POSITION_FLOOR) return toPortPosition(position);
  if (position.prepare < NO_POSITION_FLOOR) return toPortPosition({ commit: position.prepare, prepare: position.prepare });
  throw new PositionRangeError('the server sent a stream event without its log position');
}

/**
 * The positions of an append's first and last events, from the server's answer: its commit
 * position is the last event's record, its prepare position the transaction's start, which is the
 * first event's record (the two are equal for a single event). In `$all` each of those events has
 * its own record as commit and prepare position.
 */
export function appendPositions(position: Position): { firstPosition: number; lastPosition: number } {
  const lastPosition = toPortPosition({ commit: position.commit, prepare: position.commit });
  if (position.prepare > position.commit) throw new PositionRangeError(`the server answered an append with prepare position ${position.prepare} after its commit position ${position.commit}`);
  return { firstPosition: toPortPosition({ commit: position.prepare, prepare: position.prepare }), lastPosition };
}
