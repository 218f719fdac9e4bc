import type { RunStatus } from '../../streams';
import type { SqlStore } from '../projection';

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
export function batchExportRunQueries(db: SqlStore) {
  const exists = (sql: string, ...params: (string | number)[]) => (db.prepare(`SELECT EXISTS (${sql}) AS x`).get(...params) as { x: number }).x === 1;
  return {
    byId(id: string): RunRow | undefined {
      return db.prepare('SELECT * FROM batch_export_runs WHERE id = ?').get(id) as RunRow | undefined;
    },
    /**
     * Newest first, by log position: keyset pages stay stable while runs are added (new runs
     * only ever appear before the first page).
     */
    page(batchExportId: string, limit: number, cursor: RunCursor | null): RunPage {
      let rows: RunRow[];
      if (cursor?.newer) {
        rows = db
          .prepare('SELECT * FROM batch_export_runs WHERE batch_export_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?')
          .all(batchExportId, cursor.seq, limit + 1) as RunRow[];
        const hasNewer = rows.length > limit;
        rows = rows.slice(0, limit).reverse();
        const last = rows[rows.length - 1];
        const hasOlder = last ? exists('SELECT 1 FROM batch_export_runs WHERE batch_export_id = ? AND seq < ?', batchExportId, last.seq) : true;
        return { rows, hasOlder, hasNewer };
      }
      rows = db
        .prepare('SELECT * FROM batch_export_runs WHERE batch_export_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?')
        .all(batchExportId, cursor?.seq ?? Number.MAX_SAFE_INTEGER, limit + 1) as RunRow[];
      const hasOlder = rows.length > limit;
      rows = rows.slice(0, limit);
      const first = rows[0];
      const hasNewer = cursor === null ? false : first ? exists('SELECT 1 FROM batch_export_runs WHERE batch_export_id = ? AND seq > ?', batchExportId, first.seq) : true;
      return { rows, hasOlder, hasNewer };
    },
    latest(batchExportId: string, limit: number): RunRow[] {
      return db.prepare('SELECT * FROM batch_export_runs WHERE batch_export_id = ? ORDER BY seq DESC LIMIT ?').all(batchExportId, limit) as RunRow[];
    },
    /**
     * The earliest run each export has that a worker may take at `now`, in scheduling order: a
     * long backfill of one export does not hide the other exports' runs, and an export's runs are
     * taken in order.
     */
    claimable(now: string, limit: number): RunRow[] {
      return db
        .prepare(
          `SELECT * FROM batch_export_runs WHERE seq IN (
             SELECT min(seq) FROM batch_export_runs WHERE status = 'Starting'
               OR (status = 'FailedRetryable' AND retry_at <= ?) OR (status = 'Running' AND lease_until <= ?)
             GROUP BY batch_export_id)
           ORDER BY seq LIMIT ?`,
        )
        .all(now, now, limit) as RunRow[];
    },
    /** Earliest time a waiting retry becomes due, so the worker can sleep until then. */
    nextRetryAt(): string | null {
      return (db.prepare(`SELECT min(retry_at) AS t FROM batch_export_runs WHERE status = 'FailedRetryable'`).get() as { t: string | null }).t;
    },
    /** Failed runs among the export's latest `window` runs (the auto-pause rule). */
    failuresInLatest(batchExportId: string, window: number): number {
      return (
        db
          .prepare(
            `SELECT count(*) AS n FROM (SELECT status FROM batch_export_runs WHERE batch_export_id = ? ORDER BY seq DESC LIMIT ?) WHERE status = 'Failed'`,
          )
          .get(batchExportId, window) as { n: number }
      ).n;
    },
    /** Runs not yet finished, for cancelling them when their export is deleted. */
    unfinished(batchExportId: string): RunRow[] {
      return db
        .prepare(`SELECT * FROM batch_export_runs WHERE batch_export_id = ? AND status IN ('Starting', 'Running', 'FailedRetryable') ORDER BY seq`)
        .all(batchExportId) as RunRow[];
    },
  };
}

export type BatchExportRunQueries = ReturnType<typeof batchExportRunQueries>;
