import { contracts, MAX_EVENTS_PER_RECORD, type CapturedEventData, type NewEvent } from '../../streams';
import type { IngestionWarning } from './ingestion-warning';

/**
 * A request's log records in request order: captured events go into as few EventsCaptured records
 * as order allows (a warning between two events closes the record before it).
 *
 * `prepared` (a request of many slices): each event is validated against its contract and
 * serialised as it is added, so that this work is spread over the turns that add the slices; the
 * records carry their JSON text (NewEvent.serialized) and the append only inserts it (done at
 * append, it was one long turn for a large request). Otherwise (the common small request) the
 * contracts layer and the adapter do it at append, as for any other record.
 */
export class CapturedRecords {
  readonly records: NewEvent[] = [];
  private captured: CapturedEventData[] = [];
  private texts: string[] = [];

  constructor(private readonly prepared: boolean) {}

  add(event: CapturedEventData): void {
    if (this.prepared) {
      const valid = contracts.validate('EventCaptured', event) as CapturedEventData;
      this.captured.push(valid);
      this.texts.push(JSON.stringify(valid));
    } else this.captured.push(event);
    if (this.captured.length === MAX_EVENTS_PER_RECORD) this.flush();
  }

  warning(w: IngestionWarning): void {
    this.flush();
    this.records.push({ type: 'IngestionWarningRaised', data: { type: w.type, source: 'capture', details: w.details } });
  }

  /** Closes the open record; call once all events are added. */
  flush(): void {
    if (this.captured.length === 0) return;
    const data = { events: this.captured };
    this.records.push(this.prepared ? { type: 'EventsCaptured', data, serialized: `{"events":[${this.texts.join(',')}]}` } : { type: 'EventsCaptured', data });
    this.captured = [];
    this.texts = [];
  }
}
