import { batchExportRunEvents } from '../../streams';
import { defineProjection } from '../define-projection';
import type { SqlValue } from '../../src/store/read-model-projection';
import { RUN_TABLES } from './schema';

/**
 * Batch export runs: one row per run stream, its status and counts. Times come from the events'
 * recordedAt; `retry_at` and `lease_until` are the worker's (future) times carried in the data.
 */
export const batchExportRunsProjection = defineProjection({
  name: 'batch_export_runs',
  version: 1,
  store: 'readmodels',
  reads: batchExportRunEvents,
  tables: RUN_TABLES,
  async apply(e, db) {
    const at = e.metadata.recordedAt;
    const set = async (sql: string, ...params: SqlValue[]) => {
      await db.run(`UPDATE batch_export_runs SET ${sql}, last_updated_at = ? WHERE id = ?`, ...params, at, e.data.runId);
    };
    switch (e.type) {
      case 'BatchExportRunScheduled': {
        const d = e.data;
        await db.run(
          `INSERT INTO batch_export_runs (id, seq, batch_export_id, project_id, backfill_id, status, records_completed, records_total_count,
             bytes_exported, latest_error, data_interval_start, data_interval_end, scheduled_at, created_at, finished_at, last_updated_at,
             attempt, retry_at, lease_until)
           VALUES (?, ?, ?, ?, ?, 'Starting', NULL, NULL, NULL, NULL, ?, ?, ?, ?, NULL, ?, 0, NULL, NULL) ON CONFLICT DO NOTHING`,
          d.runId, e.position, d.batchExportId, d.projectId, d.backfillId, d.dataIntervalStart, d.dataIntervalEnd, d.scheduledAt, at, at,
        );
        return;
      }
      case 'BatchExportRunStarted':
        await set(`status = 'Running', attempt = ?, lease_until = ?, retry_at = NULL, finished_at = NULL`, e.data.attempt, e.data.leaseUntil);
        return;
      case 'BatchExportRunAttemptFailed':
        await set(`status = 'FailedRetryable', latest_error = ?, retry_at = ?, lease_until = NULL`, e.data.error, e.data.retryAt);
        return;
      case 'BatchExportRunFinished': {
        const d = e.data;
        await set(
          `status = ?, records_completed = ?, records_total_count = ?, bytes_exported = ?, latest_error = ?, finished_at = ?, lease_until = NULL`,
          d.status, d.recordsCompleted, d.recordsTotalCount, d.bytesExported, d.error, at,
        );
        return;
      }
      case 'BatchExportRunCancelled':
        await set(`status = 'Cancelled', latest_error = coalesce(latest_error, ?), finished_at = ?, lease_until = NULL, retry_at = NULL`, e.data.reason, at);
        return;
      case 'BatchExportRunRetryRequested':
        await set(`status = 'Starting', finished_at = NULL, retry_at = NULL, lease_until = NULL`);
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
});
