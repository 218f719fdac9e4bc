import type { Config } from '../config';
import type { ContractedEventLog } from '../store/contracted-log';
import type { IngestTransport } from '../store/ingest-transport';
import type { StartedRole } from '../runtime/leased-role';
import { NatsIngestTransport } from '../adapters/nats/nats-transport';
import { startIngestConsumers } from '../adapters/nats/ingest-consumer';
import type { NatsLayout } from '../adapters/nats/layout';
import type { EventLogSpec } from './event-log';
import { startIngestThread } from './ingest-thread';

type NatsConfig = Pick<Config, 'NATS_URL' | 'NATS_REPLICAS' | 'NATS_STREAM' | 'NATS_SUBJECT_PREFIX' | 'NATS_ACK_WAIT_MS' | 'NATS_PUBLISH_TIMEOUT_MS'>;

const layoutOf = (config: NatsConfig): NatsLayout => ({ stream: config.NATS_STREAM, prefix: config.NATS_SUBJECT_PREFIX, replicas: config.NATS_REPLICAS });

/** The transport NATS_URL names: JetStream when set, else none (the runtime appends directly). */
export async function openIngestTransport(config: NatsConfig): Promise<IngestTransport | undefined> {
  if (!config.NATS_URL) return undefined;
  return NatsIngestTransport.open({ url: config.NATS_URL, ...layoutOf(config), publishTimeoutMs: config.NATS_PUBLISH_TIMEOUT_MS });
}

/** Where the role runs on a thread of its own: the log it opens there, and who hears its appends. */
export interface IngestThreadOptions {
  logSpec: EventLogSpec;
  appended: (position: number) => void;
  /** The thread's CPU niceness (as the projections' thread: background work beside capture). */
  nice?: number;
}

/**
 * The `ingest` role: JetStream's consumers appending to the log until stopped. They append to the
 * adapter under the contracts: capture validated the records and stamped their schema versions
 * before publishing, and going through the contracts again would read (parse) every record's data,
 * which the SQLite and PostgreSQL logs store as the published text without reading it. With
 * `thread`, on a thread with its own log handle: the consumers' work (decoding messages, appending)
 * then never delays the capture requests this process answers; without, on `log` here.
 */
export async function startIngestRole(
  config: NatsConfig,
  log: ContractedEventLog,
  onError: (message: string, err: unknown) => void,
  thread?: IngestThreadOptions,
): Promise<StartedRole> {
  if (!config.NATS_URL) throw new Error('the ingest role needs NATS_URL');
  const consumers = { url: config.NATS_URL, ...layoutOf(config), ackWaitMs: config.NATS_ACK_WAIT_MS };
  if (thread) return startIngestThread({ log: thread.logSpec, consumers, nice: thread.nice }, thread.appended, onError);
  return startIngestConsumers(log.inner, { ...consumers, onError });
}
