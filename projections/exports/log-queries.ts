import type { BatchExportLogLevel } from '../../streams';
import type { SqlValue } from '../../src/store/read-model-projection';
import type { SqlSession } from '../../src/store/sql';

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

/** `%text%` for LIKE, with LIKE's own characters (and the escape) taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Newest first; filtered by run, level(s) and a substring (ignoring case). */
export function batchExportLogQueries(db: SqlSession) {
  return {
    async list(filter: LogFilter): Promise<{ count: number; rows: LogRow[] }> {
      const where = ['batch_export_id = ?'];
      const params: SqlValue[] = [filter.batchExportId];
      if (filter.runId !== undefined) {
        where.push('run_id = ?');
        params.push(filter.runId);
      }
      if (filter.levels && filter.levels.length > 0) {
        where.push(db.dialect.inJsonArray('level', 'text'));
        params.push(JSON.stringify(filter.levels));
      }
      if (filter.search) {
        where.push(db.dialect.likeIgnoringCase('message', '?'));
        params.push(containing(filter.search));
      }
      const w = where.join(' AND ');
      const count = (await db.get<{ n: number }>(`SELECT count(*) AS n FROM batch_export_logs WHERE ${w}`, ...params))!.n;
      const rows = await db.all<LogRow>(
        `SELECT * FROM batch_export_logs WHERE ${w} ORDER BY timestamp DESC, seq DESC LIMIT ? OFFSET ?`,
        ...params, filter.limit, filter.offset,
      );
      return { count, rows };
    },
  };
}

export type BatchExportLogQueries = ReturnType<typeof batchExportLogQueries>;
