import type { BatchExportLogEvent, RecordedEvent } from '../../streams';
import type { ReadModelProjection } from '../projection';
import type { SqlSession } from '../sql';
import { LOG_TABLES } from './schema';

/** Log entries of exports and runs, one row per event, keyed by log position. */
export const batchExportLogsProjection: ReadModelProjection = {
  name: 'batch_export_logs',
  version: 1,
  store: 'readmodels',
  handles: ['BatchExportLogWritten'],
  tables: LOG_TABLES,
  async apply(recorded: RecordedEvent, db: SqlSession) {
    const e = recorded as unknown as BatchExportLogEvent;
    const d = e.data;
    await db.run(
      `INSERT INTO batch_export_logs (seq, batch_export_id, project_id, run_id, level, message, timestamp)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      recorded.position, d.batchExportId, d.projectId, d.runId, d.level, d.message, d.timestamp,
    );
  },
};
