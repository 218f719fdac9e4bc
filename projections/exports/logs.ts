import { batchExportLogEvents } from '../../streams';
import { defineProjection } from '../define-projection';
import { LOG_TABLES } from './schema';

/** Log entries of exports and runs, one row per event, keyed by log position. */
export const batchExportLogsProjection = defineProjection({
  name: 'batch_export_logs',
  version: 1,
  store: 'readmodels',
  reads: batchExportLogEvents,
  tables: LOG_TABLES,
  async apply(recorded, db) {
    const d = recorded.data;
    await db.run(
      `INSERT INTO batch_export_logs (seq, batch_export_id, project_id, run_id, level, message, timestamp)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      recorded.position, d.batchExportId, d.projectId, d.runId, d.level, d.message, d.timestamp,
    );
  },
});
