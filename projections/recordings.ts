import { recordingEvents, snapshotCount, snapshotLines, type RecordedEvent, type RecordingSnapshotsData } from '../streams';
import { defineProjection } from './define-projection';
import type { SqlSession } from '../src/store/sql';
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
export const recordingsProjection = defineProjection({
  name: 'recordings',
  version: 1,
  store: 'readmodels',
  reads: recordingEvents,
  tables: [
    {
      name: 'session_recordings',
      columns: {
        project_id: 'integer',
        session_id: 'text',
        distinct_id: 'text',
        snapshot_source: 'text',
        lib: 'text',
        start_ts: 'integer?',
        end_ts: 'integer?',
        start_url: 'text?',
        start_url_ts: 'integer?',
        snapshot_count: 'integer',
        snapshot_bytes: 'integer',
        chunk_count: 'integer',
        click_count: 'integer',
        keypress_count: 'integer',
        mouse_activity_count: 'integer',
        console_log_count: 'integer',
        console_warn_count: 'integer',
        console_error_count: 'integer',
        first_received_at: 'text',
        last_received_at: 'text',
      },
      primaryKey: ['project_id', 'session_id'],
      indexes: { session_recordings_by_start: ['project_id', 'start_ts'] },
      clustered: true,
      orderBy: 'project_id, session_id',
    },
    {
      name: 'session_recording_chunks',
      columns: {
        project_id: 'integer',
        session_id: 'text',
        seq: 'integer',
        revision: 'integer',
        window_ids: 'text',
        start_ts: 'integer?',
        end_ts: 'integer?',
        snapshot_count: 'integer',
        snapshot_bytes: 'integer',
      },
      primaryKey: ['project_id', 'session_id', 'seq'],
      clustered: true,
      orderBy: 'project_id, session_id, seq',
    },
  ],
  async apply(recorded, db) {
    const projectId = projectOf(recorded);
    if (projectId === null) return;
    await applyChunk(projectId, recorded.revision, recorded.data, db);
  },
});

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

async function applyChunk(projectId: number, revision: number, d: RecordingSnapshotsData, db: SqlSession) {
  const c = summarizeChunk(snapshotLines(d));
  const count = snapshotCount(d);
  const session = await db.get<SessionTimes>(
    'SELECT chunk_count, start_ts, end_ts, start_url, start_url_ts FROM session_recordings WHERE project_id = ? AND session_id = ?',
    projectId,
    d.session_id,
  );
  const seq = session?.chunk_count ?? 0;
  await db.run(
    `INSERT INTO session_recording_chunks (project_id, session_id, seq, revision, window_ids, start_ts, end_ts, snapshot_count, snapshot_bytes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    projectId, d.session_id, seq, revision, JSON.stringify(c.windowIds), c.startTs, c.endTs, count, d.snapshot_bytes,
  );
  if (session === undefined) {
    await db.run(
      `INSERT INTO session_recordings (project_id, session_id, distinct_id, snapshot_source, lib, start_ts, end_ts,
         start_url, start_url_ts, snapshot_count, snapshot_bytes, chunk_count, click_count, keypress_count,
         mouse_activity_count, console_log_count, console_warn_count, console_error_count, first_received_at, last_received_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)`,
      projectId, d.session_id, d.distinct_id, d.snapshot_source, d.lib, c.startTs, c.endTs, c.url, c.urlTs,
      count, d.snapshot_bytes, c.clicks, c.keypresses, c.mouseActivity, c.consoleLog, c.consoleWarn,
      c.consoleError, d.received_at, d.received_at,
    );
    return;
  }
  // Chunks arrive out of order across requests: the earliest timestamp and the earliest page win.
  const earlierUrl = c.url !== null && (session.start_url_ts === null || (c.urlTs as number) < session.start_url_ts);
  await db.run(
    `UPDATE session_recordings SET start_ts = ?, end_ts = ?, start_url = ?, start_url_ts = ?,
       snapshot_count = snapshot_count + ?, snapshot_bytes = snapshot_bytes + ?, chunk_count = chunk_count + 1,
       click_count = click_count + ?, keypress_count = keypress_count + ?, mouse_activity_count = mouse_activity_count + ?,
       console_log_count = console_log_count + ?, console_warn_count = console_warn_count + ?,
       console_error_count = console_error_count + ?, last_received_at = ?
     WHERE project_id = ? AND session_id = ?`,
    least(session.start_ts, c.startTs, Math.min), least(session.end_ts, c.endTs, Math.max),
    earlierUrl ? c.url : session.start_url, earlierUrl ? c.urlTs : session.start_url_ts,
    count, d.snapshot_bytes, c.clicks, c.keypresses, c.mouseActivity,
    c.consoleLog, c.consoleWarn, c.consoleError, d.received_at, projectId, d.session_id,
  );
}
