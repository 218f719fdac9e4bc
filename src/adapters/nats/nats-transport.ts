import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import {
  TransportUnavailableError,
  type ConsumerLag,
  type HandedOver,
  type IngestHandOver,
  type IngestTransport,
  type TransportStatus,
} from '../../store/ingest-transport';
import { connectNats, ConnectionState } from './connection';
import { ENVELOPE_FORMAT, ENVELOPE_FORMAT_HEADER, envelopes, messageId } from './envelope';
import { consumersOf, ensureStream, subjectFor, type NatsLayout } from './layout';

export interface NatsTransportOptions extends NatsLayout {
  /** NATS_URL: one or more servers, comma-separated (`nats://127.0.0.1:4222`). */
  url: string;
  /**
   * How long a hand-over may wait for JetStream's acknowledgements, retries included, before the
   * request is refused (503). Long enough for a cluster to elect new leaders when a node stops
   * (several seconds on a loaded machine), short of the SDKs' 10 s request timeout.
   */
  publishTimeoutMs?: number;
}

/**
 * How long one publish waits for its acknowledgement before it is sent again (within the hand-over's
 * deadline). A message sent to a stream leader that died meanwhile is never answered: waiting for it
 * until the deadline would leave no time to send it to the new leader.
 */
const ATTEMPT_TIMEOUT_MS = 3000;

/** How long `/_health` waits for the consumers' figures before reporting without them. */
const LAG_TIMEOUT_MS = 1000;

/**
 * Capture's side of NATS JetStream: a hand-over is published as one message per record group, in
 * order on one connection (so in order in the stream), with a Nats-Msg-Id digest of its content;
 * it resolves once JetStream has acknowledged every message (stored on file, replicated to the
 * stream's replicas). While the connection is down, hand-overs fail at once (503
 * transport_unavailable) rather than queue in the client where a crash would lose them.
 */
export class NatsIngestTransport implements IngestTransport {
  private readonly js: JetStreamClient;
  private readonly state: ConnectionState;

  private constructor(
    readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly layout: NatsLayout,
    private readonly publishTimeoutMs: number,
  ) {
    this.js = jetstream(nc);
    this.state = new ConnectionState(nc);
  }

  static async open(options: NatsTransportOptions): Promise<NatsIngestTransport> {
    const nc = await connectNats(options.url, 'eventful capture');
    try {
      const jsm = await jetstreamManager(nc);
      await ensureStream(jsm, options);
      return new NatsIngestTransport(nc, jsm, options, options.publishTimeoutMs ?? 9000);
    } catch (err) {
      await nc.close();
      throw err;
    }
  }

  async handOver(h: IngestHandOver): Promise<HandedOver> {
    if (!this.state.connected || this.nc.isClosed()) throw new TransportUnavailableError();
    const subject = subjectFor(this.layout, h.historical, h.projectId);
    const bodies = envelopes(h, this.nc.info?.max_payload ?? 1024 * 1024);
    const deadline = Date.now() + this.publishTimeoutMs;
    // Digested in parallel, off the event loop; then published in order.
    const ids = await Promise.all(bodies.map((body) => messageId(subject, body)));
    if (!this.state.connected || this.nc.isClosed()) throw new TransportUnavailableError();
    // All published before any acknowledgement is awaited: one connection keeps their order.
    const settled = await Promise.allSettled(bodies.map((body, i) => this.publish(subject, body, ids[i], Math.min(ATTEMPT_TIMEOUT_MS, this.publishTimeoutMs))));
    const first = settled.findIndex((s) => s.status === 'rejected');
    if (first === -1) return { position: null };
    // A stream whose leader is being elected (a cluster node stopped) refuses or times out for a
    // moment. Publishing again is safe: the same Nats-Msg-Id is stored once within the duplicate
    // window. From the first refused message on, one at a time, in order, until the deadline; a
    // later message that was stored meanwhile is kept where it landed (its retry is a duplicate).
    let lastError: unknown = (settled[first] as PromiseRejectedResult).reason;
    for (let i = first; i < bodies.length; i++) {
      if (settled[i].status === 'fulfilled') continue;
      for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
        const left = deadline - Date.now();
        if (left <= 0 || !this.state.connected || this.nc.isClosed())
          throw new TransportUnavailableError(`The ingestion transport did not acknowledge the events (${(lastError as Error)?.message ?? lastError}); they may be retried.`);
        try {
          await this.publish(subject, bodies[i], ids[i], Math.min(ATTEMPT_TIMEOUT_MS, left));
          break;
        } catch (err) {
          lastError = err;
          await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, deadline - Date.now()))));
        }
      }
    }
    return { position: null };
  }

  private publish(subject: string, body: Buffer, id: string, timeout: number) {
    const hdrs = headers();
    hdrs.set('Nats-Msg-Id', id);
    hdrs.set(ENVELOPE_FORMAT_HEADER, ENVELOPE_FORMAT);
    return this.js.publish(subject, body, { headers: hdrs, timeout });
  }

  async status(): Promise<TransportStatus> {
    if (!this.state.connected || this.nc.isClosed()) return { kind: 'nats', status: 'unavailable', detail: 'The NATS server cannot be reached; capture answers 503 until it is back.' };
    try {
      const consumers = await withTimeout(this.lag(), LAG_TIMEOUT_MS);
      return { kind: 'nats', status: 'ok', consumers };
    } catch (err) {
      return { kind: 'nats', status: 'unavailable', detail: `JetStream does not answer: ${(err as Error).message}` };
    }
  }

  /** Pending and unacknowledged messages per consumer, and the age of the oldest one not yet appended. */
  private async lag(): Promise<Record<string, ConsumerLag>> {
    const out: Record<string, ConsumerLag> = {};
    for (const { name, filter } of consumersOf(this.layout)) {
      let pending = 0;
      let ackPending = 0;
      try {
        const info = await this.jsm.consumers.info(this.layout.stream, name);
        pending = info.num_pending;
        ackPending = info.num_ack_pending;
      } catch {
        // Not created yet (no ingest role has run): every message of its subjects waits.
        const info = await this.jsm.streams.info(this.layout.stream, { subjects_filter: filter });
        pending = Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
      }
      let oldest: number | null = null;
      if (pending + ackPending > 0) {
        // Work-queue retention: the first message left on the consumer's subjects is the oldest not appended.
        const first = await this.jsm.direct.getMessage(this.layout.stream, { seq: 1, next_by_subj: filter }).catch(() => null);
        if (first) oldest = Math.max(0, (Date.now() - first.time.getTime()) / 1000);
      }
      out[name] = { pending, ack_pending: ackPending, oldest_age_seconds: oldest };
    }
    return out;
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.close();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
  ]);
}
