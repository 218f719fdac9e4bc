import type { RecordedEvent } from '../../streams';
import { QUARANTINE_TABLE } from '../../projections/projection';
import type { SqlDatabase } from '../store/sql-database';

/**
 * Events a projection could not apply: recorded (in the projection's own store, in the transaction
 * that skips them) instead of stopping the projection. The content is a function of the log and the
 * fold alone (no clock), so a replay quarantines the same rows, and digests include them.
 */
export interface QuarantinedEvent {
  projection: string;
  position: number;
  /** Index of the part (e.g. the captured event inside an EventsCaptured record); null for the whole record. */
  part: number | null;
  stream_id: string;
  event_type: string;
  project_id: number | null;
  /** The event's own time (log metadata), not the time of the failure: the same on every replay. */
  recorded_at: string;
  error: string;
}

export interface QuarantineSummary {
  count: number;
  /** The most recent quarantines, newest first. */
  latest: QuarantinedEvent[];
}

export { QUARANTINE_TABLE };
/** How many recent quarantines each projection keeps in memory for `/_health`. */
export const LATEST_QUARANTINES = 10;
/** Error messages are cut so that a fold echoing its input cannot bloat the table. */
const MAX_ERROR_LENGTH = 500;

const SCHEMA = `CREATE TABLE IF NOT EXISTS ${QUARANTINE_TABLE} (
  projection TEXT NOT NULL, position INTEGER NOT NULL, part INTEGER, stream_id TEXT NOT NULL,
  event_type TEXT NOT NULL, project_id INTEGER, recorded_at TEXT NOT NULL, error TEXT NOT NULL)`;
const INDEX = `CREATE INDEX IF NOT EXISTS ${QUARANTINE_TABLE}_by_projection ON ${QUARANTINE_TABLE} (projection, position, part)`;

export function createQuarantineTable(db: SqlDatabase): void {
  db.exec(SCHEMA);
  db.exec(INDEX);
}

export function quarantineRecord(projection: string, event: RecordedEvent, part: number | null, err: unknown): QuarantinedEvent {
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return {
    projection,
    position: event.position,
    part,
    stream_id: event.streamId,
    event_type: event.type,
    project_id: event.metadata.projectId ?? null,
    recorded_at: event.metadata.recordedAt,
    error: message.length > MAX_ERROR_LENGTH ? message.slice(0, MAX_ERROR_LENGTH) : message,
  };
}

/** Statements bound to one store: insert inside the runner's transaction, forget on a rebuild. */
export function quarantineStatements(db: SqlDatabase) {
  const insert = db.prepare(
    `INSERT INTO ${QUARANTINE_TABLE} (projection, position, part, stream_id, event_type, project_id, recorded_at, error)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const forget = db.prepare(`DELETE FROM ${QUARANTINE_TABLE} WHERE projection = ?`);
  const count = db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM ${QUARANTINE_TABLE} WHERE projection = ?`);
  const latest = db.prepare<[string, number], QuarantinedEvent>(
    `SELECT projection, position, part, stream_id, event_type, project_id, recorded_at, error FROM ${QUARANTINE_TABLE}
     WHERE projection = ? ORDER BY position DESC, part DESC LIMIT ?`,
  );
  return {
    insert: (q: QuarantinedEvent) => insert.run(q.projection, q.position, q.part, q.stream_id, q.event_type, q.project_id, q.recorded_at, q.error),
    forget: (projection: string) => forget.run(projection),
    summary: (projection: string): QuarantineSummary => ({
      count: count.get(projection)?.n ?? 0,
      latest: latest.all(projection, LATEST_QUARANTINES),
    }),
  };
}

/** The rows of one projection in a total order, for its digest (none: the digest is unchanged). */
export function quarantineRows(db: SqlDatabase, projection: string): unknown[][] {
  const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(QUARANTINE_TABLE);
  if (!exists) return [];
  return db
    .prepare(`SELECT position, part, stream_id, event_type, project_id, recorded_at, error FROM ${QUARANTINE_TABLE} WHERE projection = ? ORDER BY position, part`)
    .raw(true)
    .all(projection) as unknown[][];
}

/** Adds one projection's fresh quarantines to a summary (newest first, capped). */
export function mergeSummary(summary: QuarantineSummary, fresh: readonly QuarantinedEvent[]): QuarantineSummary {
  if (fresh.length === 0) return summary;
  const latest = [...fresh].reverse().concat(summary.latest).slice(0, LATEST_QUARANTINES);
  return { count: summary.count + fresh.length, latest };
}

/** Totals over projections, newest (highest position) first. */
export function combineSummaries(summaries: readonly QuarantineSummary[]): QuarantineSummary {
  const latest = summaries
    .flatMap((s) => s.latest)
    .sort((a, b) => b.position - a.position || (b.part ?? -1) - (a.part ?? -1))
    .slice(0, LATEST_QUARANTINES);
  return { count: summaries.reduce((n, s) => n + s.count, 0), latest };
}
