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
  let firstPosition = lastPosition;
  if (events.length > 1) {
    const first = BigInt(nextExpectedRevision - events.length + 1);
    for await (const resolved of client.readStream(scope.serverStream(streamId), { direction: FORWARDS, fromRevision: first, maxCount: 1 })) {
      if (resolved.event) firstPosition = streamEventPortPosition(resolved.event.position);
    }
  }
  return { nextExpectedRevision, firstPosition, lastPosition };
}
