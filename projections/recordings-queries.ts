import type { SqlSession } from '../src/store/sql';

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

export function recordingQueries(db: SqlSession) {
  return {
    /** Newest first (by first rrweb timestamp; sessions without one last), ties by session id. */
    async list(projectId: number, limit: number, offset: number): Promise<{ count: number; rows: RecordingRow[] }> {
      const count = (await db.get<{ n: number }>('SELECT count(*) AS n FROM session_recordings WHERE project_id = ?', projectId))!.n;
      // NULLS LAST spelled out: SQLite sorts nulls first ascending, PostgreSQL last.
      const rows = await db.all<RecordingRow>(
        `SELECT ${COLUMNS} FROM session_recordings WHERE project_id = ? ORDER BY start_ts DESC NULLS LAST, session_id LIMIT ? OFFSET ?`,
        projectId,
        limit,
        offset,
      );
      return { count, rows };
    },

    byId(projectId: number, sessionId: string): Promise<RecordingRow | undefined> {
      return db.get<RecordingRow>(`SELECT ${COLUMNS} FROM session_recordings WHERE project_id = ? AND session_id = ?`, projectId, sessionId);
    },

    /** In arrival order. */
    async chunks(projectId: number, sessionId: string): Promise<RecordingChunkRow[]> {
      const rows = await db.all<Omit<RecordingChunkRow, 'window_ids'> & { window_ids: string }>(
        `SELECT seq, revision, window_ids, start_ts, end_ts, snapshot_count, snapshot_bytes FROM session_recording_chunks
         WHERE project_id = ? AND session_id = ? ORDER BY seq`,
        projectId,
        sessionId,
      );
      return rows.map((r) => ({ ...r, window_ids: JSON.parse(r.window_ids) as string[] }));
    },
  };
}

export type RecordingQueries = ReturnType<typeof recordingQueries>;
