import type { BatchExportInterval } from '../../streams';
import type { SqlStore } from '../projection';

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
export function batchExportQueries(db: SqlStore) {
  return {
    /** Deleted exports too: the worker must know a run's export is gone. */
    byId(id: string): BatchExportRow | undefined {
      const r = db.prepare('SELECT * FROM batch_exports WHERE id = ?').get(id) as Raw | undefined;
      return r ? row(r) : undefined;
    },
    /** Live exports of some projects, newest first. */
    list(projectIds: readonly number[], limit: number, offset: number): { count: number; rows: BatchExportRow[] } {
      const where = 'deleted = 0 AND project_id IN (SELECT value FROM json_each(?))';
      const ids = JSON.stringify(projectIds);
      const count = (db.prepare(`SELECT count(*) AS n FROM batch_exports WHERE ${where}`).get(ids) as { n: number }).n;
      const rows = db.prepare(`SELECT * FROM batch_exports WHERE ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`).all(ids, limit, offset) as Raw[];
      return { count, rows: rows.map(row) };
    },
    /** Every live export: the scheduler's worklist. */
    live(): BatchExportRow[] {
      return (db.prepare('SELECT * FROM batch_exports WHERE deleted = 0 ORDER BY seq').all() as Raw[]).map(row);
    },
    pauses(batchExportId: string): PauseSpan[] {
      const rows = db
        .prepare('SELECT paused_at, unpaused_at, backfill FROM batch_export_pauses WHERE batch_export_id = ? ORDER BY seq')
        .all(batchExportId) as (Omit<PauseSpan, 'backfill'> & { backfill: number })[];
      return rows.map((r) => ({ ...r, backfill: r.backfill === 1 }));
    },
    /** Backfills of live exports that still have intervals to schedule, oldest request first. */
    pendingBackfills(): BackfillRow[] {
      return db
        .prepare(
          `SELECT b.*, (SELECT count(*) FROM batch_export_runs r WHERE r.batch_export_id = b.batch_export_id AND r.backfill_id = b.id) AS scheduled_runs
           FROM batch_export_backfills b JOIN batch_exports e ON e.id = b.batch_export_id
           WHERE e.deleted = 0 AND scheduled_runs < b.total_runs ORDER BY b.seq`,
        )
        .all() as BackfillRow[];
    },
    /** End of the latest scheduled (not backfill) interval: where the scheduler resumes. */
    lastScheduledEnd(batchExportId: string): string | null {
      const r = db
        .prepare('SELECT max(data_interval_end) AS e FROM batch_export_runs WHERE batch_export_id = ? AND backfill_id IS NULL')
        .get(batchExportId) as { e: string | null };
      return r.e;
    },
  };
}

export type BatchExportQueries = ReturnType<typeof batchExportQueries>;
