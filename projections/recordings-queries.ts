import type { SqlStore } from './projection';

export interface RecordingRow {
  project_id: number;
  session_id: string;
  distinct_id: string;
  snapshot_source: string;
  lib: string;
  /** Epoch ms of the earliest / latest rrweb event; null when no event carried a usable timestamp. */
  start_ts: number | null;
  end_ts: number | null;
  start_url: string | null;
  snapshot_count: number;
  snapshot_bytes: number;
  chunk_count: number;
  click_count: number;
  keypress_count: number;
  mouse_activity_count: number;
  console_log_count: number;
  console_warn_count: number;
  console_error_count: number;
  first_received_at: string;
  last_received_at: string;
}

export interface RecordingChunkRow {
  seq: number;
  /** Revision of the RecordingSnapshotsCaptured record in the project's recordings stream. */
  revision: number;
  window_ids: string[];
  start_ts: number | null;
  end_ts: number | null;
  snapshot_count: number;
  snapshot_bytes: number;
}

const COLUMNS = `project_id, session_id, distinct_id, snapshot_source, lib, start_ts, end_ts, start_url, snapshot_count,
  snapshot_bytes, chunk_count, click_count, keypress_count, mouse_activity_count, console_log_count,
  console_warn_count, console_error_count, first_received_at, last_received_at`;

export function recordingQueries(db: SqlStore) {
  return {
    /** Newest first (by first rrweb timestamp), ties by session id. */
    list(projectId: number, limit: number, offset: number): { count: number; rows: RecordingRow[] } {
      const count = (db.prepare('SELECT count(*) AS n FROM session_recordings WHERE project_id = ?').get(projectId) as { n: number }).n;
      const rows = db
        .prepare(`SELECT ${COLUMNS} FROM session_recordings WHERE project_id = ? ORDER BY start_ts DESC, session_id LIMIT ? OFFSET ?`)
        .all(projectId, limit, offset) as RecordingRow[];
      return { count, rows };
    },

    byId(projectId: number, sessionId: string): RecordingRow | undefined {
      return db.prepare(`SELECT ${COLUMNS} FROM session_recordings WHERE project_id = ? AND session_id = ?`).get(projectId, sessionId) as
        | RecordingRow
        | undefined;
    },

    /** In arrival order. */
    chunks(projectId: number, sessionId: string): RecordingChunkRow[] {
      const rows = db
        .prepare(
          `SELECT seq, revision, window_ids, start_ts, end_ts, snapshot_count, snapshot_bytes FROM session_recording_chunks
           WHERE project_id = ? AND session_id = ? ORDER BY seq`,
        )
        .all(projectId, sessionId) as Array<Omit<RecordingChunkRow, 'window_ids'> & { window_ids: string }>;
      return rows.map((r) => ({ ...r, window_ids: JSON.parse(r.window_ids) as string[] }));
    },
  };
}

export type RecordingQueries = ReturnType<typeof recordingQueries>;
