import type { BatchExportInterval } from '../../streams';
import type { SqlSession } from '../../src/store/sql';

export interface BatchExportRow {
  id: string;
  seq: number;
  project_id: number;
  name: string;
  model: string;
  destination_type: string;
  /** Includes secret fields: never send it as is. */
  destination_config: Record<string, unknown>;
  interval: BatchExportInterval;
  paused: boolean;
  created_at: string;
  created_by: number | null;
  last_updated_at: string;
  last_paused_at: string | null;
  start_at: string | null;
  end_at: string | null;
  hogql_query: string | null;
  schema: Record<string, unknown> | null;
  deleted: boolean;
  deleted_at: string | null;
}

export interface PauseSpan {
  paused_at: string;
  unpaused_at: string | null;
  backfill: boolean;
}

export interface BackfillRow {
  id: string;
  batch_export_id: string;
  project_id: number;
  interval: BatchExportInterval;
  start_at: string;
  end_at: string;
  total_runs: number;
  /** Runs of this backfill scheduled so far (from the runs read model). */
  scheduled_runs: number;
}

type Raw = Omit<BatchExportRow, 'destination_config' | 'paused' | 'schema' | 'deleted'> & {
  destination_config: string;
  paused: number;
  schema: string | null;
  deleted: number;
};

const row = (r: Raw): BatchExportRow => ({
  ...r,
  destination_config: JSON.parse(r.destination_config) as Record<string, unknown>,
  paused: r.paused === 1,
  schema: r.schema === null ? null : (JSON.parse(r.schema) as Record<string, unknown>),
  deleted: r.deleted === 1,
});

/** Read side of the batch exports projection (and what the scheduler reads). */
export function batchExportQueries(db: SqlSession) {
  return {
    /** Deleted exports too: the worker must know a run's export is gone. */
    async byId(id: string): Promise<BatchExportRow | undefined> {
      const r = await db.get<Raw>('SELECT * FROM batch_exports WHERE id = ?', id);
      return r ? row(r) : undefined;
    },
    /** Live exports of some projects, newest first. */
    async list(projectIds: readonly number[], limit: number, offset: number): Promise<{ count: number; rows: BatchExportRow[] }> {
      const where = `deleted = 0 AND ${db.dialect.inJsonArray('project_id', 'integer')}`;
      const ids = JSON.stringify(projectIds);
      const count = (await db.get<{ n: number }>(`SELECT count(*) AS n FROM batch_exports WHERE ${where}`, ids))!.n;
      const rows = await db.all<Raw>(`SELECT * FROM batch_exports WHERE ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`, ids, limit, offset);
      return { count, rows: rows.map(row) };
    },
    /** Every live export: the scheduler's worklist. */
    async live(): Promise<BatchExportRow[]> {
      return (await db.all<Raw>('SELECT * FROM batch_exports WHERE deleted = 0 ORDER BY seq')).map(row);
    },
    async pauses(batchExportId: string): Promise<PauseSpan[]> {
      const rows = await db.all<Omit<PauseSpan, 'backfill'> & { backfill: number }>(
        'SELECT paused_at, unpaused_at, backfill FROM batch_export_pauses WHERE batch_export_id = ? ORDER BY seq',
        batchExportId,
      );
      return rows.map((r) => ({ ...r, backfill: r.backfill === 1 }));
    },
    /** Backfills of live exports that still have intervals to schedule, oldest request first. */
    async pendingBackfills(): Promise<BackfillRow[]> {
      // The count is compared in an outer query: PostgreSQL does not see a select-list alias in WHERE.
      return db.all<BackfillRow>(
        `SELECT * FROM (
           SELECT b.*, (SELECT count(*) FROM batch_export_runs r WHERE r.batch_export_id = b.batch_export_id AND r.backfill_id = b.id) AS scheduled_runs
           FROM batch_export_backfills b JOIN batch_exports e ON e.id = b.batch_export_id
           WHERE e.deleted = 0) AS pending
         WHERE scheduled_runs < total_runs ORDER BY seq`,
      );
    },
    /** End of the latest scheduled (not backfill) interval: where the scheduler resumes. */
    async lastScheduledEnd(batchExportId: string): Promise<string | null> {
      const r = await db.get<{ e: string | null }>(
        'SELECT max(data_interval_end) AS e FROM batch_export_runs WHERE batch_export_id = ? AND backfill_id IS NULL',
        batchExportId,
      );
      return r?.e ?? null;
    },
  };
}

export type BatchExportQueries = ReturnType<typeof batchExportQueries>;
