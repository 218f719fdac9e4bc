import type { BatchExportRunEvent, RecordedEvent } from '../../streams';
import type { Projection, SqlStore } from '../projection';
import { RUN_TABLES, createRunTables } from './schema';

/**
 * Batch export runs: one row per run stream, its status and counts. Times come from the events'
 * recordedAt; `retry_at` and `lease_until` are the worker's (future) times carried in the data.
 */
export const batchExportRunsProjection: Projection = {
  name: 'batch_export_runs',
  version: 1,
  store: 'readmodels',
  handles: [
    'BatchExportRunScheduled',
    'BatchExportRunStarted',
    'BatchExportRunAttemptFailed',
    'BatchExportRunFinished',
    'BatchExportRunCancelled',
    'BatchExportRunRetryRequested',
  ],
  tables: RUN_TABLES,
  setup: createRunTables,
  apply(recorded: RecordedEvent, db: SqlStore) {
    const at = recorded.metadata.recordedAt;
    const e = recorded as unknown as BatchExportRunEvent;
    const set = (sql: string, ...params: (string | number | null)[]) =>
      db.prepare(`UPDATE batch_export_runs SET ${sql}, last_updated_at = ? WHERE id = ?`).run(...params, at, e.data.runId);
    switch (e.type) {
      case 'BatchExportRunScheduled': {
        const d = e.data;
        db.prepare(
          `INSERT OR IGNORE INTO batch_export_runs (id, seq, batch_export_id, project_id, backfill_id, status, data_interval_start,
             data_interval_end, scheduled_at, created_at, last_updated_at) VALUES (?, ?, ?, ?, ?, 'Starting', ?, ?, ?, ?, ?)`,
        ).run(d.runId, recorded.position, d.batchExportId, d.projectId, d.backfillId, d.dataIntervalStart, d.dataIntervalEnd, d.scheduledAt, at, at);
        return;
      }
      case 'BatchExportRunStarted':
        set(`status = 'Running', attempt = ?, lease_until = ?, retry_at = NULL, finished_at = NULL`, e.data.attempt, e.data.leaseUntil);
        return;
      case 'BatchExportRunAttemptFailed':
        set(`status = 'FailedRetryable', latest_error = ?, retry_at = ?, lease_until = NULL`, e.data.error, e.data.retryAt);
        return;
      case 'BatchExportRunFinished': {
        const d = e.data;
        set(
          `status = ?, records_completed = ?, records_total_count = ?, bytes_exported = ?, latest_error = ?, finished_at = ?, lease_until = NULL`,
          d.status, d.recordsCompleted, d.recordsTotalCount, d.bytesExported, d.error, at,
        );
        return;
      }
      case 'BatchExportRunCancelled':
        set(`status = 'Cancelled', latest_error = coalesce(latest_error, ?), finished_at = ?, lease_until = NULL, retry_at = NULL`, e.data.reason, at);
        return;
      case 'BatchExportRunRetryRequested':
        set(`status = 'Starting', finished_at = NULL, retry_at = NULL, lease_until = NULL`);
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
};
