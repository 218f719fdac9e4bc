import type { SqlStore, TableSpec } from '../projection';

export const EXPORT_TABLES: readonly TableSpec[] = [
  { name: 'batch_exports', orderBy: 'id' },
  { name: 'batch_export_pauses', orderBy: 'seq' },
  { name: 'batch_export_backfills', orderBy: 'id' },
];
export const RUN_TABLES: readonly TableSpec[] = [{ name: 'batch_export_runs', orderBy: 'id' }];
export const LOG_TABLES: readonly TableSpec[] = [{ name: 'batch_export_logs', orderBy: 'seq' }];

/*
 * `seq` columns hold the log position of the creating event: a total, insertion-ordered key that
 * list endpoints sort on (timestamps tie when several rows come from one append).
 * `destination_config` holds the secrets the worker needs; responses redact it.
 * Pauses are kept as spans, not just the current flag: the scheduler skips the intervals that
 * ended while paused, whenever it happens to look, which makes its decisions a function of the
 * log and its clock only.
 */
export function createExportTables(db: SqlStore): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS batch_exports (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE,
  project_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  model TEXT NOT NULL,
  destination_type TEXT NOT NULL,
  destination_config TEXT NOT NULL,
  interval TEXT NOT NULL,
  paused INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  created_by INTEGER,
  last_updated_at TEXT NOT NULL,
  last_paused_at TEXT,
  start_at TEXT,
  end_at TEXT,
  hogql_query TEXT,
  schema TEXT,
  deleted INTEGER NOT NULL DEFAULT 0,
  deleted_at TEXT
);
CREATE INDEX IF NOT EXISTS batch_exports_by_project ON batch_exports (project_id, deleted, seq);
CREATE TABLE IF NOT EXISTS batch_export_pauses (
  seq INTEGER PRIMARY KEY,
  batch_export_id TEXT NOT NULL,
  paused_at TEXT NOT NULL,
  unpaused_at TEXT,
  backfill INTEGER NOT NULL DEFAULT 0,
  automatic INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS batch_export_pauses_by_export ON batch_export_pauses (batch_export_id, seq);
CREATE TABLE IF NOT EXISTS batch_export_backfills (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE,
  batch_export_id TEXT NOT NULL,
  project_id INTEGER NOT NULL,
  interval TEXT NOT NULL,
  start_at TEXT NOT NULL,
  end_at TEXT NOT NULL,
  total_runs INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS batch_export_backfills_by_export ON batch_export_backfills (batch_export_id, seq);`);
}

export function createRunTables(db: SqlStore): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS batch_export_runs (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE,
  batch_export_id TEXT NOT NULL,
  project_id INTEGER NOT NULL,
  backfill_id TEXT,
  status TEXT NOT NULL,
  records_completed INTEGER,
  records_total_count INTEGER,
  bytes_exported INTEGER,
  latest_error TEXT,
  data_interval_start TEXT NOT NULL,
  data_interval_end TEXT NOT NULL,
  scheduled_at TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  last_updated_at TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  retry_at TEXT,
  lease_until TEXT
);
CREATE INDEX IF NOT EXISTS batch_export_runs_by_export ON batch_export_runs (batch_export_id, seq);
CREATE INDEX IF NOT EXISTS batch_export_runs_by_status ON batch_export_runs (status, seq);
CREATE INDEX IF NOT EXISTS batch_export_runs_by_interval ON batch_export_runs (batch_export_id, backfill_id, data_interval_end);`);
}

export function createLogTables(db: SqlStore): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS batch_export_logs (
  seq INTEGER PRIMARY KEY,
  batch_export_id TEXT NOT NULL,
  project_id INTEGER NOT NULL,
  run_id TEXT,
  level TEXT NOT NULL,
  message TEXT NOT NULL,
  timestamp TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS batch_export_logs_by_export ON batch_export_logs (batch_export_id, timestamp, seq);
CREATE INDEX IF NOT EXISTS batch_export_logs_by_run ON batch_export_logs (run_id, timestamp, seq);`);
}
