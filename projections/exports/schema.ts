import type { TableSchema } from '../../src/store/sql';

/*
 * `seq` columns hold the log position of the creating event: a total, insertion-ordered key that
 * list endpoints sort on (timestamps tie when several rows come from one append).
 * `destination_config` holds the secrets the worker needs; responses redact it.
 * Pauses are kept as spans, not just the current flag: the scheduler skips the intervals that
 * ended while paused, whenever it happens to look, which makes its decisions a function of the
 * log and its clock only.
 * Times are ISO-8601 UTC texts as `toISOString` writes them: the queries compare and sort them as text.
 * Flags (`paused`, `deleted`, `backfill`, `automatic`) are 0/1 integers.
 */
export const EXPORT_TABLES: readonly TableSchema[] = [
  {
    name: 'batch_exports',
    columns: {
      id: 'text',
      seq: 'integer',
      project_id: 'integer',
      name: 'text',
      model: 'text',
      destination_type: 'text',
      destination_config: 'text',
      interval: 'text',
      paused: 'integer',
      created_at: 'text',
      created_by: 'integer?',
      last_updated_at: 'text',
      last_paused_at: 'text?',
      start_at: 'text?',
      end_at: 'text?',
      hogql_query: 'text?',
      schema: 'text?',
      deleted: 'integer',
      deleted_at: 'text?',
    },
    primaryKey: ['id'],
    unique: [['seq']],
    indexes: { batch_exports_by_project: ['project_id', 'deleted', 'seq'] },
    orderBy: 'id',
  },
  {
    name: 'batch_export_pauses',
    columns: { seq: 'integer', batch_export_id: 'text', paused_at: 'text', unpaused_at: 'text?', backfill: 'integer', automatic: 'integer' },
    primaryKey: ['seq'],
    indexes: { batch_export_pauses_by_export: ['batch_export_id', 'seq'] },
    orderBy: 'seq',
  },
  {
    name: 'batch_export_backfills',
    columns: {
      id: 'text',
      seq: 'integer',
      batch_export_id: 'text',
      project_id: 'integer',
      interval: 'text',
      start_at: 'text',
      end_at: 'text',
      total_runs: 'integer',
      created_at: 'text',
    },
    primaryKey: ['id'],
    unique: [['seq']],
    indexes: { batch_export_backfills_by_export: ['batch_export_id', 'seq'] },
    orderBy: 'id',
  },
];

export const RUN_TABLES: readonly TableSchema[] = [
  {
    name: 'batch_export_runs',
    columns: {
      id: 'text',
      seq: 'integer',
      batch_export_id: 'text',
      project_id: 'integer',
      backfill_id: 'text?',
      status: 'text',
      records_completed: 'integer?',
      records_total_count: 'integer?',
      bytes_exported: 'integer?',
      latest_error: 'text?',
      data_interval_start: 'text',
      data_interval_end: 'text',
      scheduled_at: 'text',
      created_at: 'text',
      finished_at: 'text?',
      last_updated_at: 'text',
      attempt: 'integer',
      retry_at: 'text?',
      lease_until: 'text?',
    },
    primaryKey: ['id'],
    unique: [['seq']],
    indexes: {
      batch_export_runs_by_export: ['batch_export_id', 'seq'],
      batch_export_runs_by_status: ['status', 'seq'],
      batch_export_runs_by_interval: ['batch_export_id', 'backfill_id', 'data_interval_end'],
    },
    orderBy: 'id',
  },
];

export const LOG_TABLES: readonly TableSchema[] = [
  {
    name: 'batch_export_logs',
    columns: {
      seq: 'integer',
      batch_export_id: 'text',
      project_id: 'integer',
      run_id: 'text?',
      level: 'text',
      message: 'text',
      timestamp: 'text',
    },
    primaryKey: ['seq'],
    indexes: {
      batch_export_logs_by_export: ['batch_export_id', 'timestamp', 'seq'],
      batch_export_logs_by_run: ['run_id', 'timestamp', 'seq'],
    },
    orderBy: 'seq',
  },
];
