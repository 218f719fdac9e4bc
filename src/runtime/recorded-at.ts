import type { EventLog } from '../store/event-log';

/**
 * When the event at `revision` of a stream was recorded: the `updated_at` a write answers with when
 * the read model has already moved past its own append.
 */
export async function recordedAtOf(log: EventLog, streamId: string, revision: number): Promise<string> {
  const [event] = await log.readStream(streamId, { fromRevision: revision, maxCount: 1 });
  if (!event) throw new Error(`stream ${streamId} has no revision ${revision}`);
  return event.metadata.recordedAt;
}
