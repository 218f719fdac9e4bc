import type { RunStatus } from '../../streams';
import type { SqlValue } from '../../src/store/read-model-projection';
import type { SqlSession } from '../../src/store/sql';

export interface RunRow {
  id: string;
  seq: number;
  batch_export_id: string;
  project_id: number;
  backfill_id: string | null;
  status: RunStatus;
  records_completed: number | null;
  records_total_count: number | null;
  bytes_exported: number | null;
  latest_error: string | null;
  data_interval_start: string;
  data_interval_end: string;
  scheduled_at: string;
  created_at: string;
  finished_at: string | null;
  last_updated_at: string;
  attempt: number;
  retry_at: string | null;
  lease_until: string | null;
}

/** A keyset position: rows strictly older (`older`) or newer than the run at `seq`. */
export interface RunCursor {
  seq: number;
  newer: boolean;
}

export interface RunPage {
  rows: RunRow[];
  hasOlder: boolean;
  hasNewer: boolean;
}

/** Read side of the runs projection: the API's lists and the worker's queue. */
export function batchExportRunQueries(db: SqlSession) {
  const exists = async (sql: string, ...params: SqlValue[]) => (await db.get<{ x: number }>(`SELECT EXISTS (${sql}) AS x`, ...params))!.x === 1;
  return {
    async byId(id: string): Promise<RunRow | undefined> {
      return db.get<RunRow>('SELECT * FROM batch_export_runs WHERE id = ?', id);
    },
    /**
     * Newest first, by log position: keyset pages stay stable while runs are added (new runs
     * only ever appear before the first page).
     */
    async page(batchExportId: string, limit: number, cursor: RunCursor | null): Promise<RunPage> {
      let rows: RunRow[];
      if (cursor?.newer) {
        rows = await db.all<RunRow>(
          'SELECT * FROM batch_export_runs WHERE batch_export_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?',
          batchExportId, cursor.seq, limit + 1,
        );
        const hasNewer = rows.length > limit;
        rows = rows.slice(0, limit).reverse();
        const last = rows[rows.length - 1];
        const hasOlder = last ? await exists('SELECT 1 FROM batch_export_runs WHERE batch_export_id = ? AND seq < ?', batchExportId, last.seq) : true;
        return { rows, hasOlder, hasNewer };
      }
      rows = await db.all<RunRow>(
        'SELECT * FROM batch_export_runs WHERE batch_export_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
        batchExportId, cursor?.seq ?? Number.MAX_SAFE_INTEGER, limit + 1,
      );
      const hasOlder = rows.length > limit;
      rows = rows.slice(0, limit);
      const first = rows[0];
      const hasNewer =
        cursor === null ? false : first ? await exists('SELECT 1 FROM batch_export_runs WHERE batch_export_id = ? AND seq > ?', batchExportId, first.seq) : true;
      return { rows, hasOlder, hasNewer };
    },
    /** The ids of an export's runs scheduled at or before a position, or a moment (ISO), newest first. */
    async idsScheduledBy(batchExportId: string, bound: { position: number } | { at: string }, limit: number): Promise<string[]> {
      const rows =
        'position' in bound
          ? await db.all<{ id: string }>('SELECT id FROM batch_export_runs WHERE batch_export_id = ? AND seq <= ? ORDER BY seq DESC LIMIT ?', batchExportId, bound.position, limit)
          : await db.all<{ id: string }>('SELECT id FROM batch_export_runs WHERE batch_export_id = ? AND created_at <= ? ORDER BY seq DESC LIMIT ?', batchExportId, bound.at, limit);
      return rows.map((r) => r.id);
    },
    async latest(batchExportId: string, limit: number): Promise<RunRow[]> {
      return db.all<RunRow>('SELECT * FROM batch_export_runs WHERE batch_export_id = ? ORDER BY seq DESC LIMIT ?', batchExportId, limit);
    },
    /**
     * The earliest run each export has that a worker may take at `now`, in scheduling order: a
     * long backfill of one export does not hide the other exports' runs, and an export's runs are
     * taken in order.
     */
    async claimable(now: string, limit: number): Promise<RunRow[]> {
      return db.all<RunRow>(
        `SELECT * FROM batch_export_runs WHERE seq IN (
           SELECT min(seq) FROM batch_export_runs WHERE status = 'Starting'
             OR (status = 'FailedRetryable' AND retry_at <= ?) OR (status = 'Running' AND lease_until <= ?)
           GROUP BY batch_export_id)
         ORDER BY seq LIMIT ?`,
        now, now, limit,
      );
    },
    /** Earliest time a waiting retry becomes due, so the worker can sleep until then. */
    async nextRetryAt(): Promise<string | null> {
      return (await db.get<{ t: string | null }>(`SELECT min(retry_at) AS t FROM batch_export_runs WHERE status = 'FailedRetryable'`))?.t ?? null;
    },
    /** Failed runs among the export's latest `window` runs (the auto-pause rule). */
    async failuresInLatest(batchExportId: string, window: number): Promise<number> {
      const r = await db.get<{ n: number }>(
        `SELECT count(*) AS n FROM (SELECT status FROM batch_export_runs WHERE batch_export_id = ? ORDER BY seq DESC LIMIT ?) AS latest
         WHERE status = 'Failed'`,
        batchExportId, window,
      );
      return r!.n;
    },
    /** Runs not yet finished, for cancelling them when their export is deleted. */
    async unfinished(batchExportId: string): Promise<RunRow[]> {
      return db.all<RunRow>(
        `SELECT * FROM batch_export_runs WHERE batch_export_id = ? AND status IN ('Starting', 'Running', 'FailedRetryable') ORDER BY seq`,
        batchExportId,
      );
    },
  };
}

export type BatchExportRunQueries = ReturnType<typeof batchExportRunQueries>;
