import type { NewEvent } from '../../streams';
import type { AppendContext, EventLog } from './event-log';

/**
 * The ingestion transport port: how a capture process hands one request's log records over once
 * they are decoded, authenticated and normalised. Direct (the embedded default) appends them here
 * and now; a broker (NATS JetStream, src/adapters/nats/) stores them durably and the `ingest` role
 * appends them later, in the same per-project order. Either way the promise resolves only once the
 * records are durable: that is when capture may answer `{"status": 1}`.
 */
export interface IngestHandOver {
  /** The log stream the records go to (a project's ingest or recordings stream). */
  streamId: string;
  projectId: number;
  /** `historical_migration` requests travel apart from live traffic. */
  historical: boolean;
  /** In request order. */
  records: readonly NewEvent[];
  context: AppendContext;
}

export interface HandedOver {
  /** Log position of the append when it happened here; null when a consumer appends later. */
  position: number | null;
}

/** Messages waiting for one consumer of a broker, for `/_health`. */
export interface ConsumerLag {
  /** Not yet delivered to the consumer. */
  pending: number;
  /** Delivered, not yet acknowledged (appended). */
  ack_pending: number;
  /** Age in seconds of the oldest message not yet acknowledged; null when none waits. */
  oldest_age_seconds: number | null;
}

export interface TransportStatus {
  kind: 'direct' | 'nats';
  status: 'ok' | 'unavailable';
  detail?: string;
  /** Per consumer (broker transports). */
  consumers?: Record<string, ConsumerLag>;
}

export interface IngestTransport {
  handOver(handOver: IngestHandOver): Promise<HandedOver>;
  status(): Promise<TransportStatus>;
  close(): Promise<void>;
}

/** The broker cannot take the records now: capture answers 503 and the client retries. */
export class TransportUnavailableError extends Error {
  readonly status = 503;

  constructor(detail = 'The ingestion transport cannot be reached; events are refused until it answers again.') {
    super(detail);
    this.name = 'TransportUnavailableError';
  }

  toBody() {
    return { type: 'server_error', code: 'transport_unavailable', detail: this.message, attr: null };
  }
}

/** A record that cannot be cut and does not fit the broker's messages (a session recording's batch above its max payload): 413. */
export class RecordTooLargeError extends Error {
  override name = 'RecordTooLargeError';
}

/** The embedded transport: one append of the request's records to the log, now. */
export function directTransport(log: EventLog): IngestTransport {
  return {
    async handOver(h) {
      const result = await log.append(h.streamId, h.records, { expectedRevision: 'any', context: h.context });
      return { position: result.lastPosition };
    },
    async status() {
      return { kind: 'direct', status: 'ok' };
    },
    async close() {},
  };
}

/**
 * A broker transport behind the event contracts: records are validated (and normalised) before
 * they are published, as an append would, so a request is refused, not acknowledged, when a
 * record could not be stored; the consumer then appends them as validated (NewEvent.serialized).
 */
export function validatedTransport(inner: IngestTransport, validate: (records: readonly NewEvent[]) => NewEvent[]): IngestTransport {
  return {
    handOver: async (h) => inner.handOver({ ...h, records: validate(h.records) }),
    status: () => inner.status(),
    close: () => inner.close(),
  };
}
