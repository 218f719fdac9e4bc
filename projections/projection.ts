import type { RecordedEvent } from '../streams';

export type SqlValue = string | number | bigint | Buffer | null;

export interface SqlStatement {
  run(...params: SqlValue[]): { changes: number };
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
}

/** The slice of a SQL store a projection may touch: it is handed one, inside the runner's transaction. */
export interface SqlStore {
  /** Cached per SQL text by the runner, so projections may call it per event. */
  prepare(sql: string): SqlStatement;
  exec(sql: string): void;
}

export type StoreName = 'readmodels' | 'analytics';

/**
 * Where the runner records the events a projection could not apply (one row per event, or per part),
 * in the projection's own store: projection, position, part, stream_id, event_type, project_id,
 * recorded_at, error.
 */
export const QUARANTINE_TABLE = 'projection_failures';

export interface TableSpec {
  name: string;
  /** A total order over the rows, so digests are stable. */
  orderBy: string;
}

/**
 * A pure fold from events to read-model rows. No clock, no randomness, no I/O but the store handed in:
 * applying the same events always writes the same rows.
 */
export interface Projection {
  readonly name: string;
  /** Bump when the tables or the fold change: the runner then rebuilds this projection from the start. */
  readonly version: number;
  readonly store: StoreName;
  /** Event types this projection reads; others only move its checkpoint. */
  readonly handles?: readonly string[];
  readonly tables: readonly TableSpec[];
  /** Idempotent schema creation (CREATE ... IF NOT EXISTS). */
  setup(db: SqlStore): void;
  apply(event: RecordedEvent, db: SqlStore): void;
  /**
   * How many independent parts an event holds (e.g. the captured events of an EventsCaptured
   * record), when applying it is the same as applying each part in turn with `applyPart`. When
   * `apply` throws, the runner applies the parts one by one and quarantines only those that throw.
   */
  parts?(event: RecordedEvent): number;
  applyPart?(event: RecordedEvent, index: number, db: SqlStore): void;
  /**
   * Told that the runner rolled back a transaction or savepoint in which it applied events: whatever
   * the projection keeps in memory about its rows (a cache) may no longer match them.
   */
  rolledBack?(db: SqlStore): void;
  /** Told, in the transaction that skips it, that an event (or one part, else null) was quarantined. */
  quarantined?(event: RecordedEvent, part: number | null, error: string, db: SqlStore): void;
}
