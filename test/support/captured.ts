import type { CapturedEventData, EventsCapturedData, RecordedEvent } from '../../streams';
import type { EventLog } from '../../src/store/event-log';

/** The captured events of some log records, in order, whether recorded alone or in a batch. */
export function capturedIn(records: readonly RecordedEvent[]): CapturedEventData[] {
  return records.flatMap((e) =>
    e.type === 'EventsCaptured' ? (e.data as EventsCapturedData).events : e.type === 'EventCaptured' ? [e.data as CapturedEventData] : [],
  );
}

/** Every captured event in the log, in log order. */
export async function capturedInLog(log: EventLog): Promise<CapturedEventData[]> {
  return capturedIn(await log.readAll());
}
