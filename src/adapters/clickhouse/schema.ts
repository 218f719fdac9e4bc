import type { ClickHouseConnection } from './connection';
import { fedCopy } from './fed-copy';

/*
 * The analytics tables on a ClickHouse server (18.16 and later).
 *
 * events: ReplacingMergeTree ordered by (project_id, event, timestamp, uuid): the experiments read
 * by project, event name and time range (and the events list when it filters by event or person).
 * 18.16 has no insert deduplication on non-replicated tables. The sink never stores a second,
 * different copy of a (project, uuid) (it looks the uuids up in event_uuids first, see sink.ts);
 * the one duplicate it can leave is an identical copy, after a crash between its inserts, which has
 * the same sorting key in every table: background merges drop it eventually, and every read says
 * FINAL meanwhile (merges are asynchronous). `_position` is the log position of the append that
 * stored the row.
 *
 * events_by_time, events_by_received: the same rows, ordered by (project_id, timestamp, uuid) and
 * (project_id, received_at, uuid). 18.16 cannot read a table in its sorting key's order, so a read
 * touches every row its condition's key range holds: the events list (newest first) and backfill
 * exports read events_by_time within a time range, scheduled exports events_by_received within
 * their window, instead of every row of the project (received_at is in no other key, and events
 * leads with the event name). Fed by materialized views on events: the sink's one INSERT writes all
 * three, so no row reaches one without the others short of a crash mid-insert, after which the
 * fold's position (position.ts: the lowest of the three tables' highest) makes the batch be sent again.
 *
 * event_hours: per (project, hour of timestamp) the rows stored (SummingMergeTree, fed by a view
 * too): where a newest-first page can start reading (event-list.ts). A count, not a set: a batch
 * sent again after a crash counts twice, so readers treat it as a hint and check what they read.
 *
 * event_uuids: (project_id, uuid) of every stored event, ordered by them, so the sink's lookup of a
 * batch's uuids reads a few granules (uuids v7 grow with time) instead of the events' uuid column.
 *
 * person_distinct_ids: ReplacingMergeTree(version) ordered by (project_id, distinct_id), PostHog's
 * person_distinct_id2 shape: reads take argMax(person_id, version) per distinct id.
 *
 * No PARTITION BY: one partition per table, which also keeps one INSERT one part per table (atomic).
 */
export const EVENTS_TABLE = 'events';
export const EVENTS_BY_TIME_TABLE = 'events_by_time';
export const EVENTS_BY_RECEIVED_TABLE = 'events_by_received';
export const EVENT_HOURS_TABLE = 'event_hours';
export const EVENT_UUIDS_TABLE = 'event_uuids';
export const PERSONS_TABLE = 'person_distinct_ids';

/** The tables holding every stored event row, each a FINAL read's complete set. */
export const EVENT_ROW_TABLES = [EVENTS_TABLE, EVENTS_BY_TIME_TABLE, EVENTS_BY_RECEIVED_TABLE] as const;
export type EventRowTable = (typeof EVENT_ROW_TABLES)[number];

/** Milliseconds per event_hours row. */
export const HOUR_MS = 3_600_000;

const EVENT_COLUMNS = `(
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
)`;
/** The columns in their order, for the views' SELECT (a view inserts its SELECT's columns). */
const EVENT_COLUMN_NAMES =
  'project_id, uuid, event, distinct_id, person_id, timestamp, received_at, properties, elements_chain, group_0, group_1, group_2, group_3, group_4, historical_migration, _position';

const eventsOrderedBy = (name: string, key: string) => `CREATE TABLE IF NOT EXISTS ${name} ${EVENT_COLUMNS} ENGINE = ReplacingMergeTree ORDER BY (${key})`;

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

/**
 * Idempotent. A database from before the copies existed gets them filled from events (fed-copy.ts;
 * `fillRows`: rows per statement of that fill, its default but in tests);
 * nothing may insert into events while this runs (the analytics fold opens the store before it
 * stores anything).
 */
export async function createAnalyticsTables(client: ClickHouseConnection, options: { fillRows?: number } = {}): Promise<void> {
  await client.command(eventsOrderedBy(EVENTS_TABLE, 'project_id, event, timestamp, uuid'));
  await client.command(EVENT_UUIDS);
  await client.command(PERSONS);
  const allRows = (where: string) => `SELECT ${EVENT_COLUMN_NAMES} FROM ${EVENTS_TABLE} WHERE ${where}`;
  await fedCopy(client, { table: EVENTS_BY_TIME_TABLE, create: (name) => eventsOrderedBy(name, 'project_id, timestamp, uuid'), select: allRows }, options.fillRows);
  await fedCopy(client, { table: EVENTS_BY_RECEIVED_TABLE, create: (name) => eventsOrderedBy(name, 'project_id, received_at, uuid'), select: allRows }, options.fillRows);
  await fedCopy(client, {
    table: EVENT_HOURS_TABLE,
    create: (name) => `CREATE TABLE IF NOT EXISTS ${name} (project_id Int64, hour Int64, n UInt64) ENGINE = SummingMergeTree ORDER BY (project_id, hour)`,
    select: (where) => `SELECT project_id, intDiv(timestamp, ${HOUR_MS}) AS hour, count() AS n FROM ${EVENTS_TABLE} WHERE ${where} GROUP BY project_id, hour`,
  }, options.fillRows);
}
