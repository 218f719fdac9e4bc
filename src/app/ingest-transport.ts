import type { Config } from '../config';
import type { IngestTransport } from '../store/ingest-transport';
import type { StartedRole } from '../runtime/leased-role';
import { NatsIngestTransport } from '../adapters/nats/nats-transport';
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

/** The thread the role runs on: the log it opens there, who hears its appends, its CPU niceness. */
export interface IngestRoleOptions {
  logSpec: EventLogSpec;
  appended: (position: number) => void;
  /** As the projections' thread: background work beside capture. */
  nice?: number;
}

/**
 * The `ingest` role: JetStream's consumers appending to the log until stopped, on a thread with
 * its own log handle (ingest-worker.ts), so decoding messages and appending never delay the capture
 * requests this process answers.
 */
export async function startIngestRole(config: NatsConfig, role: IngestRoleOptions, onError: (message: string, err: unknown) => void): Promise<StartedRole> {
  if (!config.NATS_URL) throw new Error('the ingest role needs NATS_URL');
  const consumers = { url: config.NATS_URL, ...layoutOf(config), ackWaitMs: config.NATS_ACK_WAIT_MS };
  return startIngestThread({ log: role.logSpec, consumers, nice: role.nice }, role.appended, onError);
}
