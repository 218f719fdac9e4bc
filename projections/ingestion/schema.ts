import type { TableSchema } from '../../src/store/sql';

/*
 * Index budget: every index costs on each ingested event, so only the ones a read path needs.
 * - persons (project_id, seq_position, seq_index): the persons list, newest first. The two are the
 *   ordinal of the event that created the person (one event creates at most one: see Ordinal), so
 *   they are the insertion order.
 * - person_distinct_ids: clustered on (project_id, distinct_id), so the per-event lookup is one b-tree
 *   search; person_id for merges and for listing a person's ids. (seq_position, seq_index) (the
 *   event's ordinal, its index doubled plus a slot, as one event may add two ids) keeps the order ids
 *   were added in, which is the order they are listed.
 * - events: the key (project_id, uuid) doubles as the dedup check; then name+time (experiments),
 *   time (backfills, events list), received_at (scheduled exports): all three grow at their tail, so
 *   a batch dirties few pages. (project_id, distinct_id) is the one index written at random places
 *   (about a page per event); it is kept narrow (no timestamp: one user's events are sorted after the
 *   lookup) because its width showed up directly in insert cost. "Events of a person" goes through it
 *   too, via the person's distinct ids, which also finds events recorded before a merge under the
 *   merged-away person. A person_id index would be a second random one: ~25% more fold CPU in a
 *   200k-event benchmark. Exports page by (time, uuid) on every engine, so ties on time come out
 *   alike; the time indexes do not end with uuid all the same: both engines read them in time order
 *   and sort only each run of equal times by uuid (SQLite's partial sort, PostgreSQL's incremental
 *   sort), while the 36 more bytes per entry in two indexes cost about a tenth of SQLite's
 *   end-to-end ingestion. Paging slows only where very many events share one timestamp.
 */

export const PERSONS: TableSchema = {
  name: 'persons',
  columns: {
    uuid: 'text',
    project_id: 'integer',
    properties: 'text',
    created_at: 'text',
    is_identified: 'integer',
    version: 'integer',
    seq_position: 'integer',
    seq_index: 'integer',
  },
  primaryKey: ['uuid'],
  indexes: { persons_by_project: ['project_id', 'seq_position', 'seq_index'] },
  orderBy: 'uuid',
};

export const PERSON_DISTINCT_IDS: TableSchema = {
  name: 'person_distinct_ids',
  columns: { project_id: 'integer', distinct_id: 'text', person_id: 'text', seq_position: 'integer', seq_index: 'integer' },
  primaryKey: ['project_id', 'distinct_id'],
  indexes: { person_distinct_ids_by_person: ['person_id'] },
  clustered: true,
  orderBy: 'project_id, distinct_id',
};

export const PERSON_HASH_KEY_OVERRIDES: TableSchema = {
  name: 'person_hash_key_overrides',
  columns: { project_id: 'integer', person_id: 'text', hash_key: 'text' },
  primaryKey: ['project_id', 'person_id'],
  clustered: true,
  orderBy: 'project_id, person_id',
};

export const GROUP_TYPE_MAPPINGS: TableSchema = {
  name: 'group_type_mappings',
  columns: { project_id: 'integer', group_type: 'text', group_type_index: 'integer' },
  primaryKey: ['project_id', 'group_type'],
  unique: [['project_id', 'group_type_index']],
  clustered: true,
  orderBy: 'project_id, group_type_index',
};

export const GROUP_TYPE_REFUSALS: TableSchema = {
  name: 'group_type_refusals',
  columns: { project_id: 'integer', group_type: 'text' },
  primaryKey: ['project_id', 'group_type'],
  clustered: true,
  orderBy: 'project_id, group_type',
};

export const GROUPS: TableSchema = {
  name: 'groups',
  columns: {
    project_id: 'integer',
    group_type_index: 'integer',
    group_key: 'text',
    group_properties: 'text',
    created_at: 'text',
    version: 'integer',
  },
  primaryKey: ['project_id', 'group_type_index', 'group_key'],
  orderBy: 'project_id, group_type_index, group_key',
};

export const EVENTS: TableSchema = {
  name: 'events',
  columns: {
    uuid: 'text',
    project_id: 'integer',
    event: 'text',
    distinct_id: 'text',
    person_id: 'text?',
    timestamp: 'text',
    received_at: 'text',
    properties: 'text',
    elements_chain: 'text',
    group_0: 'text?',
    group_1: 'text?',
    group_2: 'text?',
    group_3: 'text?',
    group_4: 'text?',
    historical_migration: 'integer',
  },
  primaryKey: ['project_id', 'uuid'],
  clustered: false,
  indexes: {
    events_by_name_time: ['project_id', 'event', 'timestamp'],
    events_by_time: ['project_id', 'timestamp'],
    events_by_received_at: ['project_id', 'received_at'],
    events_by_distinct_id: ['project_id', 'distinct_id'],
  },
  // The fold reads events by its key alone (whether a uuid was folded already).
  builtAfterReplay: ['events_by_name_time', 'events_by_time', 'events_by_received_at', 'events_by_distinct_id'],
  orderBy: 'project_id, uuid',
};

/**
 * Each `$feature_flag_called` event's flag and variant (`$feature_flag_response`, when a string:
 * nothing else can be a variant), in (project, flag, time) order: what experiments read their
 * exposures from without touching the events table's rows or parsing their properties (a million
 * events held 100,000 exposures whose read was most of a cold ExperimentQuery).
 */
export const FLAG_EXPOSURES: TableSchema = {
  name: 'flag_exposures',
  columns: { project_id: 'integer', flag_key: 'text', timestamp: 'text', uuid: 'text', distinct_id: 'text', person_id: 'text?', variant: 'text' },
  primaryKey: ['project_id', 'flag_key', 'timestamp', 'uuid'],
  clustered: true,
  orderBy: 'project_id, flag_key, timestamp, uuid',
};

/**
 * Keyed by the log position of the record that raised the warning and its number among that
 * record's warnings: a replay numbers them alike however the fold interleaves projects, and no
 * project waits on another's to number its own.
 */
export const INGESTION_WARNINGS: TableSchema = {
  name: 'ingestion_warnings',
  columns: { position: 'integer', seq: 'integer', project_id: 'integer', type: 'text', source: 'text', details: 'text', timestamp: 'text' },
  primaryKey: ['position', 'seq'],
  indexes: { ingestion_warnings_by_project: ['project_id', 'position', 'seq'] },
  orderBy: 'position, seq',
};

/**
 * The captured events naming each distinct id (as the event's, or as the id it merges) and each
 * group (`$group:<type>:<key>`) that changed a person or group (created, wrote, merged, identified a
 * group, or named a merge: an event that changed nothing leaves the fold of a person's past as it
 * is, so it is not kept), with where the log holds them (the record's position and
 * ingest-stream revision, the event's index in it): what time travel folds a person's or group's
 * past from. A copy of those events, not a pointer: one record holds 10,000 events of as many
 * persons, and reading whole records made a person's past cost its records' size, not its events.
 */
export const DISTINCT_ID_EVENTS: TableSchema = {
  name: 'distinct_id_events',
  columns: { project_id: 'integer', distinct_id: 'text', position: 'integer', part: 'integer', revision: 'integer', recorded_at: 'text', event: 'text' },
  primaryKey: ['project_id', 'distinct_id', 'position', 'part'],
  // Not clustered: rows (each an event's text) are appended in log order, and only the key's index
  // is kept in id order; clustered, every record's copies were spread over the whole table.
  orderBy: 'project_id, distinct_id, position, part',
};

/** Each merge: the person merged away, the one it went into, and where (persons `as_of` follow them). */
export const PERSON_MERGES: TableSchema = {
  name: 'person_merges',
  columns: { project_id: 'integer', from_id: 'text', into_id: 'text', position: 'integer' },
  primaryKey: ['project_id', 'from_id'],
  orderBy: 'project_id, from_id',
};

/** Every table of the fold, each with a total order so replay digests are comparable. */
export const INGESTION_TABLES: readonly TableSchema[] = [
  DISTINCT_ID_EVENTS,
  PERSON_MERGES,
  PERSONS,
  PERSON_DISTINCT_IDS,
  PERSON_HASH_KEY_OVERRIDES,
  GROUP_TYPE_MAPPINGS,
  GROUP_TYPE_REFUSALS,
  GROUPS,
  EVENTS,
  FLAG_EXPOSURES,
  INGESTION_WARNINGS,
];
