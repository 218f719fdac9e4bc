import { EventsCaptured, type EventsCapturedData, type RecordedEvent } from '../../streams';
import { progressBar } from './progress';

/** What a user counts as events: each captured event of a batched record, and every other record. */
const eventsIn = (record: RecordedEvent): number => (record.type === EventsCaptured.type ? (record.data as EventsCapturedData).events.length : 1);

/** A rebuild's progress callback drawing events folded, with the share of the log's positions done. */
export function foldProgress(label: string) {
  const bar = progressBar(label);
  let events = 0;
  let fraction = 0;
  return {
    onProgress: (position: number, head: number, batch: readonly RecordedEvent[]) => {
      for (const record of batch) events += eventsIn(record);
      fraction = head > 0 ? position / head : 1;
      bar.update(events, fraction);
    },
    done: () => bar.done(events, fraction),
  };
}
