import { BACKWARDS, END, StreamNotFoundError, type EventStoreDBClient, type ResolvedEvent } from '@eventstore/db-client';
import type { NewEvent } from '../../../streams';
import { checkIdempotencyKey, WrongExpectedRevisionError, type AppendOptions, type AppendResult, type ExpectedRevision } from '../../store/event-log';
import { translateAppendError } from './errors';
import type { LogScope } from './filter';
import { toEventData } from './events';
import { appendKeyOf } from './metadata';
import { appendPositions, streamEventPortPosition } from './positions';
import { toClientExpectedRevision, toPortRevision } from './revisions';

/**
 * How far back in its stream a repeated idempotency key is recognised, in events. KurrentDB has no
 * secondary index to look a key up in, so a keyed append reads its stream's tail (backwards) for
 * it. Enough for the ingest consumers: one holder appends to a project's stream in order, so a
 * redelivered message's append is among that stream's last few.
 */
export const KEY_WINDOW = 256;

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
  checkIdempotencyKey(options.idempotencyKey);
  if (options.idempotencyKey !== undefined) return appendKeyed(client, scope, streamId, events, options, options.idempotencyKey, recordedAt);
  return write(client, scope, streamId, events, options, expected, expected, recordedAt);
}

async function write(
  client: EventStoreDBClient,
  scope: LogScope,
  streamId: string,
  events: readonly NewEvent[],
  options: AppendOptions,
  sent: ExpectedRevision,
  reported: ExpectedRevision,
  recordedAt: string,
): Promise<AppendResult> {
  const key = options.idempotencyKey;
  const data = events.map((e, i) =>
    toEventData(e, options.context, recordedAt, key !== undefined && i === events.length - 1 ? { key, count: events.length } : undefined),
  );
  let result;
  try {
    result = await client.appendToStream(scope.serverStream(streamId), data, { expectedRevision: toClientExpectedRevision(sent) });
  } catch (err) {
    throw translateAppendError(err, streamId, reported);
  }
  if (!result.position) throw new Error(`the server acknowledged the append to ${streamId} without its log position`);
  return { nextExpectedRevision: toPortRevision(result.nextExpectedRevision), ...appendPositions(result.position) };
}

/**
 * A keyed append: look for the key in the stream's tail (the last event of a keyed append carries
 * it), then append expecting exactly the revision that tail ended at, so no append, keyed or not,
 * can slip in between the look and the write; when one does, look again.
 */
async function appendKeyed(
  client: EventStoreDBClient,
  scope: LogScope,
  streamId: string,
  events: readonly NewEvent[],
  options: AppendOptions,
  key: string,
  recordedAt: string,
): Promise<AppendResult> {
  const expected = options.expectedRevision ?? 'any';
  for (;;) {
    const tail = await readTail(client, scope, streamId);
    const earlier = await findKeyed(client, scope, streamId, tail, key);
    if (earlier) return earlier;
    const current = tail.length ? tail[0].event!.revision : null;
    // The caller's expectation, checked here; the server then checks the revision the tail showed.
    const satisfied =
      expected === 'any' || (expected === 'stream_exists' ? current !== null : expected === 'no_stream' ? current === null : current !== null && BigInt(expected) === current);
    if (!satisfied) return write(client, scope, streamId, events, options, expected, expected, recordedAt);
    try {
      return await write(client, scope, streamId, events, options, current === null ? 'no_stream' : toPortRevision(current), expected, recordedAt);
    } catch (err) {
      // Another append came first: look again (it may have been this key's).
      if (err instanceof WrongExpectedRevisionError) continue;
      throw err;
    }
  }
}

async function readTail(client: EventStoreDBClient, scope: LogScope, streamId: string): Promise<ResolvedEvent[]> {
  const out: ResolvedEvent[] = [];
  try {
    for await (const r of client.readStream(scope.serverStream(streamId), { direction: BACKWARDS, fromRevision: END, maxCount: KEY_WINDOW })) {
      if (r.event) out.push(r);
    }
  } catch (err) {
    if (err instanceof StreamNotFoundError) return [];
    throw err;
  }
  return out;
}

/** The first append's result, rebuilt from its events, when the tail holds the key. */
async function findKeyed(client: EventStoreDBClient, scope: LogScope, streamId: string, tail: ResolvedEvent[], key: string): Promise<AppendResult | null> {
  const i = tail.findIndex((r) => appendKeyOf(r.event!.metadata)?.key === key);
  if (i < 0) return null;
  const last = tail[i].event!;
  const count = appendKeyOf(last.metadata)!.count;
  const firstRevision = last.revision - BigInt(count - 1);
  let first = tail.find((r) => r.event!.revision === firstRevision)?.event;
  if (!first) {
    for await (const r of client.readStream(scope.serverStream(streamId), { fromRevision: firstRevision, maxCount: 1 })) first = r.event;
  }
  if (!first) throw new Error(`stream ${streamId}: the keyed append ending at revision ${last.revision} lost its first event`);
  return {
    nextExpectedRevision: toPortRevision(last.revision),
    firstPosition: streamEventPortPosition(first.position),
    lastPosition: streamEventPortPosition(last.position),
    duplicate: true,
  };
}
