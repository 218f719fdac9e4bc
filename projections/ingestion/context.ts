import type { SqlStore } from '../projection';
import type { Properties, PropertyUpdates } from './properties';

/** What every step of the fold knows about the event being folded. */
export interface FoldContext {
  db: SqlStore;
  /** The event's place in the log (see `ordinalOf`): orders the distinct ids it adds. */
  ordinal: number;
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
}

/** Warnings this fold raises itself, as opposed to those the capture endpoint logged. */
export const FOLD_WARNING_SOURCE = 'ingestion';

export function recordWarning(
  db: SqlStore,
  projectId: number,
  type: string,
  source: string,
  details: Record<string, unknown>,
  timestamp: string,
): void {
  db.prepare('INSERT INTO ingestion_warnings (project_id, type, source, details, timestamp) VALUES (?, ?, ?, ?, ?)').run(
    projectId,
    type,
    source,
    JSON.stringify(details),
    timestamp,
  );
}

export function warn(ctx: FoldContext, type: string, details: Record<string, unknown>): void {
  recordWarning(ctx.db, ctx.projectId, type, FOLD_WARNING_SOURCE, details, ctx.recordedAt);
}
