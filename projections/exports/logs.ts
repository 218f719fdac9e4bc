import type { BatchExportLogEvent, RecordedEvent } from '../../streams';
import type { Projection, SqlStore } from '../projection';
import { LOG_TABLES, createLogTables } from './schema';

/** Log entries of exports and runs, one row per event, keyed by log position. */
export const batchExportLogsProjection: Projection = {
  name: 'batch_export_logs',
  version: 1,
  store: 'readmodels',
  handles: ['BatchExportLogWritten'],
  tables: LOG_TABLES,
  setup: createLogTables,
  apply(recorded: RecordedEvent, db: SqlStore) {
    const e = recorded as unknown as BatchExportLogEvent;
    const d = e.data;
    db.prepare(
      `INSERT OR IGNORE INTO batch_export_logs (seq, batch_export_id, project_id, run_id, level, message, timestamp)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(recorded.position, d.batchExportId, d.projectId, d.runId, d.level, d.message, d.timestamp);
  },
};
