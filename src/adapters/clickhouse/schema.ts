import type { ClickHouseClient } from './http-client';

/*
 * The analytics tables on a ClickHouse server (18.16 and later).
 *
 * events: ReplacingMergeTree ordered by (project_id, event, timestamp, uuid): the experiments read
 * by project, event name and time range, the events list by project and time. 18.16 has no insert
 * deduplication on non-replicated tables, so a re-sent row is stored again; `_keep` (larger = sent
 * earlier, see sink.ts) makes every read keep the first stored copy of a (project, uuid)
 * (deduped-events.ts), and lets background merges drop the later copies of identical keys. Merges
 * are asynchronous and never cross rows whose key differs, so reads never rely on them.
 *
 * person_distinct_ids: ReplacingMergeTree(version) ordered by (project_id, distinct_id), PostHog's
 * person_distinct_id2 shape: reads take argMax(person_id, version) per distinct id.
 *
 * No PARTITION BY: one partition per table (a month key would need a DateTime from the Int64
 * milliseconds, and no read drops partitions yet).
 */
export const EVENTS_TABLE = 'events';
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
  _keep UInt64
) ENGINE = ReplacingMergeTree(_keep) ORDER BY (project_id, event, timestamp, uuid)`;

const PERSONS = `CREATE TABLE IF NOT EXISTS ${PERSONS_TABLE} (
  project_id Int64,
  distinct_id String,
  person_id String,
  version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (project_id, distinct_id)`;

/** Idempotent. */
export async function createAnalyticsTables(client: ClickHouseClient): Promise<void> {
  await client.command(EVENTS);
  await client.command(PERSONS);
}
