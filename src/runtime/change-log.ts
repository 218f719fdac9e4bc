import type { RecordedEvent } from '../../streams';
import type { SqlSession, TableSchema } from '../store/sql';
import type { AppliedEvent } from '../store/runner';

/**
 * What each committed batch of a projection changed, one row per (event type, stream, project):
 * written by the folding process of a deployment on shared read models, in the batch's own
 * transaction, so that the processes following the store tell their caches what moved by reading
 * these few rows instead of reading the log's events again. Not part of any digest: rows older than
 * RETENTION_MS are pruned; a follower cut off for longer than FOLLOWER_CUT_OFF_MS announces that what
 * moved is unknown instead (see FollowingRunner).
 */
export const CHANGES_SCHEMA: TableSchema = {
  name: 'projection_changes',
  columns: { projection: 'text', position: 'integer', event_type: 'text', stream_id: 'text', project_id: 'integer', written_at: 'integer' },
  primaryKey: ['projection', 'position', 'event_type', 'stream_id', 'project_id'],
  indexes: { projection_changes_by_age: ['written_at'] },
  orderBy: 'projection, position, event_type, stream_id, project_id',
};

/** How long change rows are kept: a follower reads them every few hundred milliseconds. */
export const RETENTION_MS = 10 * 60_000;
/**
 * A follower whose previous complete read began longer ago than this may have missed pruned rows
 * (half the retention: room for clocks that run at slightly different rates).
 */
export const FOLLOWER_CUT_OFF_MS = RETENTION_MS / 2;
/** Pruning runs at most this often per projection (in a batch's transaction). */
const PRUNE_EVERY_MS = 60_000;

// A rebuilt projection folds its positions again: their rows are there already.
const INSERT = `INSERT INTO projection_changes (projection, position, event_type, stream_id, project_id, written_at) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT DO NOTHING`;

/**
 * One row per (type, stream, project) of the applied events, at the last position each was seen.
 * Events of no project are left out: every cache is per project.
 */
export function changesOf(events: readonly RecordedEvent[]): AppliedEvent[] {
  const seen = new Map<string, AppliedEvent>();
  for (const e of events) {
    if (e.metadata.projectId === null) continue;
    seen.set(`${e.type}\u0000${e.streamId}\u0000${e.metadata.projectId}`, { type: e.type, position: e.position, streamId: e.streamId, metadata: { projectId: e.metadata.projectId } });
  }
  return [...seen.values()];
}

/** The writer's side: records a batch's changes, and now and then forgets old ones. */
export class ChangeRecorder {
  private readonly prunedAt = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async record(tx: SqlSession, projection: string, events: readonly RecordedEvent[]): Promise<void> {
    const now = this.now();
    for (const change of changesOf(events)) await tx.run(INSERT, projection, change.position, change.type, change.streamId, change.metadata.projectId, now);
    if (now - (this.prunedAt.get(projection) ?? 0) < PRUNE_EVERY_MS) return;
    this.prunedAt.set(projection, now);
    await tx.run('DELETE FROM projection_changes WHERE projection = ? AND written_at < ?', projection, now - RETENTION_MS);
  }
}

/** The follower's side: the changes a projection committed in (from, to]. */
export async function readChanges(session: SqlSession, projection: string, from: number, to: number): Promise<AppliedEvent[]> {
  const rows = await session.all<{ position: number; event_type: string; stream_id: string; project_id: number }>(
    'SELECT position, event_type, stream_id, project_id FROM projection_changes WHERE projection = ? AND position > ? AND position <= ? ORDER BY position',
    projection,
    from,
    to,
  );
  return rows.map((r) => ({ type: r.event_type, position: r.position, streamId: r.stream_id, metadata: { projectId: r.project_id } }));
}
