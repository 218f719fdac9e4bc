import { FORWARDS, type EventStoreDBClient } from '@eventstore/db-client';
import type { NewEvent } from '../../../streams';
import type { AppendOptions, AppendResult } from '../../store/event-log';
import { translateAppendError } from './errors';
import type { LogScope } from './filter';
import { toEventData } from './events';
import { streamEventPortPosition, toPortPosition } from './positions';
import { toClientExpectedRevision, toPortRevision } from './revisions';

/**
 * One appendToStream call: atomic, the expected revision checked by the server. The server answers
 * with the last event's position only; the first one, for an append of several events, is read
 * back from the stream (one small read).
 */
export async function appendEvents(
  client: EventStoreDBClient,
  scope: LogScope,
  streamId: string,
  events: readonly NewEvent[],
  options: AppendOptions,
  recordedAt: string,
): Promise<AppendResult> {
  if (events.length === 0) throw new Error('append needs at least one event');
  const expected = options.expectedRevision ?? 'any';
  const data = events.map((e) => toEventData(e, options.context, recordedAt));
  let result;
  try {
    result = await client.appendToStream(scope.serverStream(streamId), data, { expectedRevision: toClientExpectedRevision(expected) });
  } catch (err) {
    throw translateAppendError(err, streamId, expected);
  }
  if (!result.position) throw new Error(`the server acknowledged the append to ${streamId} without its log position`);
  const nextExpectedRevision = toPortRevision(result.nextExpectedRevision);
  const lastPosition = toPortPosition(result.position);
  const firstPosition = events.length > 1 ? await firstPositionOf(client, scope.serverStream(streamId), nextExpectedRevision - events.length + 1, lastPosition) : lastPosition;
  return { nextExpectedRevision, firstPosition, lastPosition };
}

/**
 * The position of an append's first event, read back. The append has committed by then: should
 * this read fail, the append must still be acknowledged (reporting it failed would have the
 * caller append it again), so the answer falls back to the last event's position, an upper bound
 * (nothing in the service reads firstPosition; positions become opaque in a later step).
 */
async function firstPositionOf(client: EventStoreDBClient, stream: string, revision: number, lastPosition: number): Promise<number> {
  try {
    for await (const resolved of client.readStream(stream, { direction: FORWARDS, fromRevision: BigInt(revision), maxCount: 1 })) {
      if (resolved.event) return streamEventPortPosition(resolved.event.position);
    }
  } catch {
    // See above: the append stands.
  }
  return lastPosition;
}
