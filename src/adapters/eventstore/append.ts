import type { EventStoreDBClient } from '@eventstore/db-client';
import type { NewEvent } from '../../../streams';
import type { AppendOptions, AppendResult } from '../../store/event-log';
import { translateAppendError } from './errors';
import type { LogScope } from './filter';
import { toEventData } from './events';
import { appendPositions } from './positions';
import { toClientExpectedRevision, toPortRevision } from './revisions';

/** One appendToStream call: atomic, the expected revision checked by the server. */
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
  return { nextExpectedRevision: toPortRevision(result.nextExpectedRevision), ...appendPositions(result.position) };
}
