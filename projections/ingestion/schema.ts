import type { SqlStore, TableSpec } from '../projection';

/** Every table of the fold, each with a total order so replay digests are comparable. */
export const INGESTION_TABLES: readonly TableSpec[] = [
  { name: 'persons', orderBy: 'uuid' },
  { name: 'person_distinct_ids', orderBy: 'project_id, distinct_id' },
  { name: 'person_hash_key_overrides', orderBy: 'project_id, person_id' },
  { name: 'group_type_mappings', orderBy: 'project_id, group_type_index' },
  { name: 'group_type_refusals', orderBy: 'project_id, group_type' },
  { name: 'groups', orderBy: 'project_id, group_type_index, group_key' },
  { name: 'events', orderBy: 'project_id, uuid' },
  { name: 'ingestion_warnings', orderBy: 'id' },
];

/*
 * Index budget: every index costs on each ingested event, so only the ones a read path needs.
 * - persons(project_id): persons list, newest first by rowid (rowid is the insertion order).
 * - person_distinct_ids: clustered on (project_id, distinct_id), so the per-event lookup is one b-tree
 *   search; person_id for merges and for listing a person's ids. `seq` (log position * 2 + slot, as
 *   one event may add two ids) keeps the order ids were added in, which is the order they are listed.
 * - events: unique (project_id, uuid) doubles as the dedup check; then name+time (experiments),
 *   time (backfills, events list), received_at (scheduled exports): all three grow at their tail, so
 *   a batch dirties few pages. (project_id, distinct_id) is the one index written at random places
 *   (about a page per event); it is kept narrow (no timestamp: one user's events are sorted after the
 *   lookup) because its width showed up directly in insert cost. "Events of a person" goes through it
 *   too, via the person's distinct ids, which also finds events recorded before a merge under the
 *   merged-away person. A person_id index would be a second random one: ~25% more fold CPU in a
 *   200k-event benchmark.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS persons (
  uuid TEXT PRIMARY KEY,
  project_id INTEGER NOT NULL,
  properties TEXT NOT NULL,
  created_at TEXT NOT NULL,
  is_identified INTEGER NOT NULL,
  version INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS persons_by_project ON persons (project_id);

CREATE TABLE IF NOT EXISTS person_distinct_ids (
  project_id INTEGER NOT NULL,
  distinct_id TEXT NOT NULL,
  person_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (project_id, distinct_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS person_distinct_ids_by_person ON person_distinct_ids (person_id);

CREATE TABLE IF NOT EXISTS person_hash_key_overrides (
  project_id INTEGER NOT NULL,
  person_id TEXT NOT NULL,
  hash_key TEXT NOT NULL,
  PRIMARY KEY (project_id, person_id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS group_type_mappings (
  project_id INTEGER NOT NULL,
  group_type TEXT NOT NULL,
  group_type_index INTEGER NOT NULL,
  PRIMARY KEY (project_id, group_type),
  UNIQUE (project_id, group_type_index)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS group_type_refusals (
  project_id INTEGER NOT NULL,
  group_type TEXT NOT NULL,
  PRIMARY KEY (project_id, group_type)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS groups (
  project_id INTEGER NOT NULL,
  group_type_index INTEGER NOT NULL,
  group_key TEXT NOT NULL,
  group_properties TEXT NOT NULL,
  created_at TEXT NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (project_id, group_type_index, group_key)
);

CREATE TABLE IF NOT EXISTS events (
  uuid TEXT NOT NULL,
  project_id INTEGER NOT NULL,
  event TEXT NOT NULL,
  distinct_id TEXT NOT NULL,
  person_id TEXT,
  timestamp TEXT NOT NULL,
  received_at TEXT NOT NULL,
  properties TEXT NOT NULL,
  elements_chain TEXT NOT NULL,
  group_0 TEXT,
  group_1 TEXT,
  group_2 TEXT,
  group_3 TEXT,
  group_4 TEXT,
  historical_migration INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS events_key ON events (project_id, uuid);
CREATE INDEX IF NOT EXISTS events_by_name_time ON events (project_id, event, timestamp);
CREATE INDEX IF NOT EXISTS events_by_time ON events (project_id, timestamp);
CREATE INDEX IF NOT EXISTS events_by_received_at ON events (project_id, received_at);
CREATE INDEX IF NOT EXISTS events_by_distinct_id ON events (project_id, distinct_id);

CREATE TABLE IF NOT EXISTS ingestion_warnings (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL,
  type TEXT NOT NULL,
  source TEXT NOT NULL,
  details TEXT NOT NULL,
  timestamp TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ingestion_warnings_by_project ON ingestion_warnings (project_id);
`;

export function createIngestionSchema(db: SqlStore): void {
  db.exec(DDL);
}
