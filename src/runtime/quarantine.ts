import type { RecordedEvent } from '../../streams';
import { QUARANTINE_TABLE } from '../store/read-model-projection';
import type { SqlSession, TableSchema } from '../store/sql';
import type { QuarantinedEvent, QuarantineSummary } from '../store/runner';

/*
 * Events a projection could not apply: recorded (in the projection's own store, in the transaction
 * that skips them) instead of stopping the projection. The content is a function of the log and the
 * fold alone (no clock), so a replay quarantines the same rows, and digests include them.
 */

export { QUARANTINE_TABLE };
/** How many recent quarantines each projection keeps in memory for `/_health`. */
export const LATEST_QUARANTINES = 10;
/** Error messages are cut so that a fold echoing its input cannot bloat the table. */
const MAX_ERROR_LENGTH = 500;

/** No key: one event may be quarantined once per part, and the whole record has no part. */
export const QUARANTINE_SCHEMA: TableSchema = {
  name: QUARANTINE_TABLE,
  columns: {
    projection: 'text',
    position: 'integer',
    part: 'integer?',
    stream_id: 'text',
    event_type: 'text',
    project_id: 'integer?',
    recorded_at: 'text',
    error: 'text',
  },
  primaryKey: [],
  indexes: { [`${QUARANTINE_TABLE}_by_projection`]: ['projection', 'position', 'part'] },
  orderBy: 'projection, position, part',
};

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
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, slicing a message no longer than the limit answers it whole
    error: message.length > MAX_ERROR_LENGTH ? message.slice(0, MAX_ERROR_LENGTH) : message,
  };
}

export async function insertQuarantine(db: SqlSession, q: QuarantinedEvent): Promise<void> {
  await db.run(
    `INSERT INTO ${QUARANTINE_TABLE} (projection, position, part, stream_id, event_type, project_id, recorded_at, error)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    q.projection,
    q.position,
    q.part,
    q.stream_id,
    q.event_type,
    q.project_id,
    q.recorded_at,
    q.error,
  );
}

export async function forgetQuarantines(db: SqlSession, projection: string): Promise<void> {
  await db.run(`DELETE FROM ${QUARANTINE_TABLE} WHERE projection = ?`, projection);
}

export async function quarantineSummary(db: SqlSession, projection: string): Promise<QuarantineSummary> {
  const count = await db.get<{ n: number }>(`SELECT count(*) AS n FROM ${QUARANTINE_TABLE} WHERE projection = ?`, projection);
  const latest = await db.all<QuarantinedEvent>(
    `SELECT projection, position, part, stream_id, event_type, project_id, recorded_at, error FROM ${QUARANTINE_TABLE}
     WHERE projection = ? ORDER BY position DESC, part DESC LIMIT ?`,
    projection,
    LATEST_QUARANTINES,
  );
  // Stryker disable next-line OptionalChaining: equivalent, count(*) always answers a row
  return { count: count?.n ?? 0, latest };
}

/** The rows of one projection in a total order, for its digest (none: the digest is unchanged). */
export async function quarantineRows(db: SqlSession, projection: string): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  for await (const row of db.stream(
    `SELECT position, part, stream_id, event_type, project_id, recorded_at, error FROM ${QUARANTINE_TABLE} WHERE projection = ? ORDER BY position, part`,
    projection,
  )) {
    rows.push(row);
  }
  return rows;
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
