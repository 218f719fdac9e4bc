import type { RecordedEvent } from '../../streams';
import type { EventLog } from '../store/event-log';
import { within, type AsOf } from './as-of';

/**
 * One stream as it stood at `asOf`: the log bounds a position itself; a moment is a prefix of the
 * stream (recorded times are stamped at append, so a stream's rise with its revisions), cut at the
 * first event recorded after it. Only this stream is read, never the rest of the log.
 */
export async function streamAsOf(log: EventLog, streamId: string, asOf: AsOf): Promise<RecordedEvent[]> {
  const events = await log.readStream(streamId, 'position' in asOf ? { toPosition: asOf.position } : {});
  const cut = events.findIndex((e) => !within(asOf, e));
  return cut < 0 ? events : events.slice(0, cut);
}
