import type { ClickHouseConnection } from './connection';

/*
 * The analytics tables on a ClickHouse server (18.16 and later).
 *
 * events: ReplacingMergeTree ordered by (project_id, event, timestamp, uuid): the experiments read
 * by project, event name and time range, the events list by project and time. 18.16 has no insert
 * deduplication on non-replicated tables. The sink never stores a second, different copy of a
 * (project, uuid) (it looks the uuids up in event_uuids first, see sink.ts); the one duplicate it
 * can leave is an identical copy, after a crash between its two inserts, which has the same sorting
 * key: background merges drop it eventually, and every read says FINAL meanwhile (merges are
 * asynchronous). `_position` is the log position of the append that stored the row.
 *
 * event_uuids: (project_id, uuid) of every stored event, ordered by them, so the sink's lookup of a
 * batch's uuids reads a few granules (uuids v7 grow with time) instead of the events' uuid column.
 *
 * person_distinct_ids: ReplacingMergeTree(version) ordered by (project_id, distinct_id), PostHog's
 * person_distinct_id2 shape: reads take argMax(person_id, version) per distinct id.
 *
 * No PARTITION BY: one partition per table, which also keeps one INSERT one part (atomic); a month
 * key would need a DateTime from the Int64 milliseconds, and no read drops partitions yet.
 */
export const EVENTS_TABLE = 'events';
export const EVENT_UUIDS_TABLE = 'event_uuids';
export const PERSONS_TABLE = 'person_distinct_ids';

const EVENTS = `CREATE TABLE IF NOT EXISTS ${EVENTS_TABLE} (
  project_id Int64,
  uuid String,
  event String,
  distinct_id String,
  person_id Nullable(String),
  timestamp Int64,
  received_at Int64,
  properties String,
  elements_chain String,
  group_0 Nullable(String),
  group_1 Nullable(String),
  group_2 Nullable(String),
  group_3 Nullable(String),
  group_4 Nullable(String),
  historical_migration UInt8,
  _position Int64
) ENGINE = ReplacingMergeTree ORDER BY (project_id, event, timestamp, uuid)`;

const EVENT_UUIDS = `CREATE TABLE IF NOT EXISTS ${EVENT_UUIDS_TABLE} (
  project_id Int64,
  uuid String
) ENGINE = ReplacingMergeTree ORDER BY (project_id, uuid)`;

const PERSONS = `CREATE TABLE IF NOT EXISTS ${PERSONS_TABLE} (
  project_id Int64,
  distinct_id String,
  person_id String,
  version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (project_id, distinct_id)`;

/** Idempotent. */
export async function createAnalyticsTables(client: ClickHouseConnection): Promise<void> {
  await client.command(EVENTS);
  await client.command(EVENT_UUIDS);
  await client.command(PERSONS);
}
