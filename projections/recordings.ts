import type { RecordedEvent, RecordingSnapshotsData } from '../streams';
import type { Projection, SqlStore } from './projection';
import { summarizeChunk } from './recordings-chunk';

/** The project of a recordings record: its metadata, else its stream name. */
function projectOf(recorded: RecordedEvent): number | null {
  if (recorded.metadata.projectId !== null) return recorded.metadata.projectId;
  const match = /^recordings-(\d+)$/.exec(recorded.streamId);
  return match ? Number(match[1]) : null;
}

/**
 * Session recordings: one row per session (who, when, how much, first URL, activity counts) and
 * its ordered chunk list. A chunk is one RecordingSnapshotsCaptured record, named by its stream
 * revision: the snapshot data stays in the log and the snapshots endpoint reads it from there, so
 * this read model holds metadata only. Times are rrweb timestamps (epoch ms) as sent; a session
 * without any falls back to when its first chunk was received. The person is resolved at query
 * time through `person_distinct_ids`, so a later merge moves the recording with the person.
 */
export const recordingsProjection: Projection = {
  name: 'recordings',
  version: 1,
  store: 'readmodels',
  handles: ['RecordingSnapshotsCaptured'],
  tables: [
    { name: 'session_recordings', orderBy: 'project_id, session_id' },
    { name: 'session_recording_chunks', orderBy: 'project_id, session_id, seq' },
  ],
  setup(db) {
    db.exec(`CREATE TABLE IF NOT EXISTS session_recordings (
      project_id INTEGER NOT NULL, session_id TEXT NOT NULL, distinct_id TEXT NOT NULL,
      snapshot_source TEXT NOT NULL, lib TEXT NOT NULL, start_ts INTEGER, end_ts INTEGER,
      start_url TEXT, start_url_ts INTEGER, snapshot_count INTEGER NOT NULL, snapshot_bytes INTEGER NOT NULL,
      chunk_count INTEGER NOT NULL, click_count INTEGER NOT NULL, keypress_count INTEGER NOT NULL,
      mouse_activity_count INTEGER NOT NULL, console_log_count INTEGER NOT NULL,
      console_warn_count INTEGER NOT NULL, console_error_count INTEGER NOT NULL,
      first_received_at TEXT NOT NULL, last_received_at TEXT NOT NULL,
      PRIMARY KEY (project_id, session_id)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS session_recordings_by_start ON session_recordings (project_id, start_ts);
    CREATE TABLE IF NOT EXISTS session_recording_chunks (
      project_id INTEGER NOT NULL, session_id TEXT NOT NULL, seq INTEGER NOT NULL, revision INTEGER NOT NULL,
      window_ids TEXT NOT NULL, start_ts INTEGER, end_ts INTEGER, snapshot_count INTEGER NOT NULL,
      snapshot_bytes INTEGER NOT NULL,
      PRIMARY KEY (project_id, session_id, seq)) WITHOUT ROWID;`);
  },
  apply(recorded: RecordedEvent, db: SqlStore) {
    if (recorded.type !== 'RecordingSnapshotsCaptured') return;
    const projectId = projectOf(recorded);
    if (projectId === null) return;
    applyChunk(projectId, recorded.revision, recorded.data as RecordingSnapshotsData, db);
  },
};

interface SessionTimes {
  chunk_count: number;
  start_ts: number | null;
  end_ts: number | null;
  start_url: string | null;
  start_url_ts: number | null;
}

/** Combines two optional times (min or max); absent on one side means the other. */
const least = (a: number | null, b: number | null, pick: (x: number, y: number) => number): number | null =>
  a === null ? b : b === null ? a : pick(a, b);

function applyChunk(projectId: number, revision: number, d: RecordingSnapshotsData, db: SqlStore) {
  const c = summarizeChunk(d.snapshots);
  const session = db
    .prepare('SELECT chunk_count, start_ts, end_ts, start_url, start_url_ts FROM session_recordings WHERE project_id = ? AND session_id = ?')
    .get(projectId, d.session_id) as SessionTimes | undefined;
  const seq = session?.chunk_count ?? 0;
  db.prepare(
    `INSERT INTO session_recording_chunks (project_id, session_id, seq, revision, window_ids, start_ts, end_ts, snapshot_count, snapshot_bytes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(projectId, d.session_id, seq, revision, JSON.stringify(c.windowIds), c.startTs, c.endTs, d.snapshots.length, d.snapshot_bytes);
  if (session === undefined) {
    db.prepare(
      `INSERT INTO session_recordings (project_id, session_id, distinct_id, snapshot_source, lib, start_ts, end_ts,
         start_url, start_url_ts, snapshot_count, snapshot_bytes, chunk_count, click_count, keypress_count,
         mouse_activity_count, console_log_count, console_warn_count, console_error_count, first_received_at, last_received_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      projectId, d.session_id, d.distinct_id, d.snapshot_source, d.lib, c.startTs, c.endTs, c.url, c.urlTs,
      d.snapshots.length, d.snapshot_bytes, c.clicks, c.keypresses, c.mouseActivity, c.consoleLog, c.consoleWarn,
      c.consoleError, d.received_at, d.received_at,
    );
    return;
  }
  // Chunks arrive out of order across requests: the earliest timestamp and the earliest page win.
  const earlierUrl = c.url !== null && (session.start_url_ts === null || (c.urlTs as number) < session.start_url_ts);
  db.prepare(
    `UPDATE session_recordings SET start_ts = ?, end_ts = ?, start_url = ?, start_url_ts = ?,
       snapshot_count = snapshot_count + ?, snapshot_bytes = snapshot_bytes + ?, chunk_count = chunk_count + 1,
       click_count = click_count + ?, keypress_count = keypress_count + ?, mouse_activity_count = mouse_activity_count + ?,
       console_log_count = console_log_count + ?, console_warn_count = console_warn_count + ?,
       console_error_count = console_error_count + ?, last_received_at = ?
     WHERE project_id = ? AND session_id = ?`,
  ).run(
    least(session.start_ts, c.startTs, Math.min), least(session.end_ts, c.endTs, Math.max),
    earlierUrl ? c.url : session.start_url, earlierUrl ? c.urlTs : session.start_url_ts,
    d.snapshots.length, d.snapshot_bytes, c.clicks, c.keypresses, c.mouseActivity,
    c.consoleLog, c.consoleWarn, c.consoleError, d.received_at, projectId, d.session_id,
  );
}
