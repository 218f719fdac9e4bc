import type { SqlSession } from '../../src/store/sql';
import type { Ordinal } from './ordinal';
import type { PersonStore } from './persons';
import type { Properties, PropertyUpdates } from './properties';

/** What every step of the fold knows about the event being folded (and where its persons are cached). */
export interface FoldContext extends PersonStore {
  /** The event's place in the log: orders the persons it creates and the distinct ids it adds. */
  ordinal: Ordinal;
  projectId: number;
  uuid: string;
  event: string;
  distinctId: string;
  properties: Properties;
  /**
   * What the event does to its person's properties: its own `$set`/`$set_once`/`$unset` plus the
   * GeoIP and lifted device, page and campaign properties (null when nothing; see `personUpdatesOf`).
   */
  personUpdates: PropertyUpdates | null;
  /** The event's timestamp, normalised to `toISOString()` form. */
  timestamp: string;
  /** When the log recorded the event: the time stamped on warnings, since the fold has no clock. */
  recordedAt: string;
  /** The distinct id's person before this event, read together with the dedup check. */
  personIdBefore: string | undefined;
  /**
   * Set by foldPerson when the event left its person as it was: no merge, no new person, nothing
   * written. Decided by the person's state, never by whether it was cached, so a replay agrees.
   */
  personUnchanged?: boolean;
}

/** Warnings this fold raises itself, as opposed to those the capture endpoint logged. */
export const FOLD_WARNING_SOURCE = 'ingestion';

/** Numbered after the record's earlier warnings: a replay numbers them as the first fold did. */
const INSERT_WARNING = `INSERT INTO ingestion_warnings (position, seq, project_id, type, source, details, timestamp)
  VALUES (?, (SELECT coalesce(max(seq), -1) + 1 FROM ingestion_warnings WHERE position = ?), ?, ?, ?, ?, ?)`;

/** A warning about the log record at `position` (the record that carried the event, or the warning itself). */
export async function recordWarning(
  db: SqlSession,
  position: number,
  projectId: number,
  type: string,
  source: string,
  details: Record<string, unknown>,
  timestamp: string,
): Promise<void> {
  await db.run(INSERT_WARNING, position, position, projectId, type, source, JSON.stringify(details), timestamp);
}

export function warn(ctx: FoldContext, type: string, details: Record<string, unknown>): Promise<void> {
  return recordWarning(ctx.db, ctx.ordinal.position, ctx.projectId, type, FOLD_WARNING_SOURCE, details, ctx.recordedAt);
}
