import type { BatchExportLogLevel } from '../../streams';
import type { SqlStore } from '../projection';

export interface LogRow {
  seq: number;
  batch_export_id: string;
  project_id: number;
  run_id: string | null;
  level: BatchExportLogLevel;
  message: string;
  timestamp: string;
}

export interface LogFilter {
  batchExportId: string;
  runId?: string;
  levels?: readonly BatchExportLogLevel[];
  search?: string;
  limit: number;
  offset: number;
}

/** Newest first; filtered by run, level(s) and a substring. */
export function batchExportLogQueries(db: SqlStore) {
  return {
    list(filter: LogFilter): { count: number; rows: LogRow[] } {
      const where = ['batch_export_id = ?'];
      const params: (string | number)[] = [filter.batchExportId];
      if (filter.runId !== undefined) {
        where.push('run_id = ?');
        params.push(filter.runId);
      }
      if (filter.levels && filter.levels.length > 0) {
        where.push('level IN (SELECT value FROM json_each(?))');
        params.push(JSON.stringify(filter.levels));
      }
      if (filter.search) {
        where.push("instr(lower(message), lower(?)) > 0");
        params.push(filter.search);
      }
      const w = where.join(' AND ');
      const count = (db.prepare(`SELECT count(*) AS n FROM batch_export_logs WHERE ${w}`).get(...params) as { n: number }).n;
      const rows = db
        .prepare(`SELECT * FROM batch_export_logs WHERE ${w} ORDER BY timestamp DESC, seq DESC LIMIT ? OFFSET ?`)
        .all(...params, filter.limit, filter.offset) as LogRow[];
      return { count, rows };
    },
  };
}

export type BatchExportLogQueries = ReturnType<typeof batchExportLogQueries>;
