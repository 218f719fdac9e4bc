import { RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';

/** Where a deployment's ingestion messages live: one stream, subjects per project, live and historical apart. */
export interface NatsLayout {
  /** JetStream stream name (NATS_STREAM). */
  stream: string;
  /** Subjects are `<prefix>.live.<project>` and `<prefix>.historical.<project>` (NATS_SUBJECT_PREFIX). */
  prefix: string;
  /** Replicas of the stream (NATS_REPLICAS): 3 on a three-node cluster keeps it through one node's loss. */
  replicas: number;
}

export const subjectFor = (layout: NatsLayout, historical: boolean, projectId: number): string =>
  `${layout.prefix}.${historical ? 'historical' : 'live'}.${projectId}`;

/** The two durable consumers the ingest role pulls with, by name, and the subjects each one reads. */
export const consumersOf = (layout: NatsLayout): { name: string; filter: string }[] => [
  { name: `${layout.stream}_live`, filter: `${layout.prefix}.live.*` },
  { name: `${layout.stream}_historical`, filter: `${layout.prefix}.historical.*` },
];

/** JetStream deduplicates a repeated Nats-Msg-Id within this window; the idempotent append covers what lies outside it. */
const DUPLICATE_WINDOW_NS = 10 * 60 * 1_000_000_000;

/**
 * Creates the stream, or checks the one there: file storage (an acknowledged publish is on disk),
 * work-queue retention (a message goes once the ingest role has appended and acknowledged it), no
 * age or size limit (a backlog waits for the ingest role however long it is away).
 */
export async function ensureStream(jsm: JetStreamManager, layout: NatsLayout): Promise<void> {
  const config: Partial<StreamConfig> & { name: string } = {
    name: layout.stream,
    subjects: [`${layout.prefix}.live.*`, `${layout.prefix}.historical.*`],
    storage: StorageType.File,
    retention: RetentionPolicy.Workqueue,
    num_replicas: layout.replicas,
    duplicate_window: DUPLICATE_WINDOW_NS,
    // Direct gets (2.9.0+) let /_health read the oldest waiting message's time from any replica.
    allow_direct: true,
  };
  try {
    const info = await jsm.streams.info(layout.stream);
    if (info.config.num_replicas !== layout.replicas) await jsm.streams.update(layout.stream, { ...info.config, num_replicas: layout.replicas });
    return;
  } catch (err) {
    if (!(err instanceof JetStreamApiError) || err.code !== JetStreamApiCodes.StreamNotFound) throw err;
  }
  await jsm.streams.add(config);
}
