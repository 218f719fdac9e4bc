import { map, type Observable } from 'rxjs';
import type { ContractRegistry, NewEvent, RecordedEvent } from '../../streams';
import type { AppendOptions, EventLog, ReadAllOptions, ReadStreamOptions, SubscribeOptions } from './event-log';

/**
 * Puts the event contracts in front of any adapter: appends are validated (and normalised) against
 * the current schema, reads are upcast to it. Adapters stay ignorant of the product's events.
 */
export class ContractedEventLog implements EventLog {
  constructor(
    readonly inner: EventLog,
    private readonly registry: ContractRegistry,
  ) {}

  validate(events: readonly NewEvent[]): NewEvent[] {
    return events.map((e) => ({
      ...e,
      // Serialised data was validated by its producer, slice by slice (see NewEvent.serialized).
      data: e.serialized === undefined ? this.registry.validate(e.type, e.data) : e.data,
      schemaVersion: this.registry.versionOf(e.type),
    }));
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions) {
    return this.inner.append(streamId, this.validate(events), options);
  }

  async readStream(streamId: string, options?: ReadStreamOptions) {
    return (await this.inner.readStream(streamId, options)).map(this.upcast);
  }

  async readAll(options?: ReadAllOptions) {
    return (await this.inner.readAll(options)).map(this.upcast);
  }

  subscribeBatches(options?: SubscribeOptions): Observable<RecordedEvent[]> {
    return this.inner.subscribeBatches(options).pipe(map((batch) => batch.map(this.upcast)));
  }

  subscribe(options?: SubscribeOptions): Observable<RecordedEvent> {
    return this.inner.subscribe(options).pipe(map(this.upcast));
  }

  head() {
    return this.inner.head();
  }

  chainHead() {
    return this.inner.chainHead();
  }

  close() {
    return this.inner.close();
  }

  readonly upcast = (event: RecordedEvent): RecordedEvent => {
    const version = this.registry.has(event.type) ? this.registry.versionOf(event.type) : event.schemaVersion;
    if (event.schemaVersion >= version) return event;
    return { ...event, schemaVersion: version, data: this.registry.upcast(event.type, event.schemaVersion, event.data) };
  };
}
