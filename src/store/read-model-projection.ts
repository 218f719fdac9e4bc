import type { RecordedEvent } from '../../streams';
import type { SqlSession, SqlValue, TableSchema } from './sql';

export type { SqlDialect, SqlRow, SqlSession, SqlValue, TableSchema, ColumnType } from './sql';


export interface SqlStatement {
  run(...params: SqlValue[]): { changes: number };
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
}

/**
 * The embedded store's synchronous SQL, for the reads not on the read-model port yet (flag serving's
 * person lookups, experiment results and the export source over the events table).
 */
export interface SqlStore {
  /** Cached per SQL text, so callers may call it per request. */
  prepare(sql: string): SqlStatement;
  exec(sql: string): void;
}

export type StoreName = 'readmodels';

/**
 * The copies of read-model rows the runtime keeps in memory (flag serving reads them per request).
 * A projection names those its changes make stale; the runtime drops them, per project.
 */
export type CachedReadModel = 'flag-definitions' | 'person-properties' | 'hash-key-overrides' | 'group-properties' | 'group-type-mappings' | 'remote-config';

/**
 * Where the runner records the events a projection could not apply (one row per event, or per part),
 * in the projection's own store: projection, position, part, stream_id, event_type, project_id,
 * recorded_at, error.
 */
export const QUARANTINE_TABLE = 'projection_failures';

/**
 * A pure fold from events to read-model rows, over the asynchronous read-model port: it writes
 * portable SQL through the session handed in, inside the runner's transaction, so the same fold runs
 * on every read-model adapter. No clock, no randomness, no I/O but the session: applying the same
 * events always writes the same rows.
 */
export interface ReadModelProjection {
  readonly name: string;
  /** Bump when the tables or the fold change: the runner then rebuilds this projection from the start. */
  readonly version: number;
  readonly store: StoreName;
  /** Event types this projection reads; others only move its checkpoint. */
  readonly handles?: readonly string[];
  /**
   * For a fold whose events fall into independent lanes (one per project: no event reads another
   * lane's rows), the lane of an event it handles. The runner then lets each lane run ahead of the
   * others, so a lane with a heavy backlog does not hold the rest back (see lane-backlog.ts).
   */
  lane?(event: RecordedEvent): string;
  /**
   * The version before this one, kept for one upgrade: while this version is built side by side, that
   * one goes on folding new events into the tables that serve (without it they serve as they were).
   */
  readonly previous?: ReadModelProjection;
  /** The in-memory copies its changes make stale. */
  readonly invalidates?: readonly CachedReadModel[];
  /** Created by the adapter before the first event; dropped on a rebuild. */
  readonly tables: readonly TableSchema[];
  apply(event: RecordedEvent, db: SqlSession): Promise<void>;
  /**
   * Applies events in order exactly as `apply` on each in turn would, but may keep the storage
   * busy with one event's writes while it folds the next (everything is written once it resolves).
   * Used for a batch's first attempt; the retry that isolates a failing event uses `apply`.
   * Asks `stop` after each event (when given) and stops there if it resolves to true; resolves to
   * how many events it applied.
   */
  applyAll?(events: readonly RecordedEvent[], db: SqlSession, stop?: () => Promise<boolean>): Promise<number>;
  /**
   * How many independent parts an event holds (e.g. the captured events of an EventsCaptured
   * record), when applying it is the same as applying each part in turn with `applyPart`. When
   * `apply` throws, the runner applies the parts one by one and quarantines only those that throw.
   */
  parts?(event: RecordedEvent): number;
  applyPart?(event: RecordedEvent, index: number, db: SqlSession): Promise<void>;
  /**
   * Told that the runner rolled back a transaction or savepoint in which it applied events: whatever
   * the projection keeps in memory about its rows (a cache) may no longer match them.
   */
  rolledBack?(): void;
  /** Told, in the transaction that skips it, that an event (or one part, else null) was quarantined. */
  quarantined?(event: RecordedEvent, part: number | null, error: string, db: SqlSession): Promise<void>;
}

