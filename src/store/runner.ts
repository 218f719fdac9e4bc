import type { Subject } from 'rxjs';
import type { RecordedEvent } from '../../streams';
import type { ReadModelProjection } from './read-model-projection';

/**
 * The projection runner as the rest of the service sees it (in this thread, in a worker thread, or
 * following a store another process folds), and the vocabulary it answers in.
 */

/** What a committed batch touched: enough for caches to invalidate (a remote runner sends stubs). */
export interface AppliedEvent {
  type: string;
  position: number;
  streamId: string;
  metadata: { projectId: number | null };
}
export interface AppliedBatch {
  projection: string;
  events: readonly AppliedEvent[];
  /**
   * What moved is not known (a following process was cut off from the store for longer than the
   * change rows are kept): every cache of the projection's data, in every project, is stale.
   */
  unknown?: true;
}

/** An event a projection could not apply, recorded instead of stopping it (see runtime/quarantine.ts). */
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

/** Where a side-by-side rebuild stands (`/_health`). */
export interface RebuildProgress {
  /** The version being built, and how far in the log it has come. */
  version: number;
  position: number;
}

export interface CatchUpOptions {
  toPosition?: number;
  until?: Record<string, number>;
  /** After each batch read from the log: where it ended, the head aimed at, and the records it held. */
  onProgress?: (position: number, head: number, batch: readonly RecordedEvent[]) => void;
  /**
   * 'finish' (the default): projections being rebuilt side by side are built to the head and take
   * over before this resolves. 'background': only the others are caught up; rebuilds go on while
   * the runner follows the log (a service starts serving at once).
   */
  rebuilds?: 'finish' | 'background';
}

/** What the rest of the runtime needs to know of a projection: its name, store and tables. */

/** What the rest of the runtime needs to know of a projection: its name, store and tables. */
export type ProjectionInfo = Pick<ReadModelProjection, 'name' | 'store' | 'tables'>;

/** The runner as the rest of the runtime sees it: in this thread, or in a worker thread. */
export interface Runner {
  readonly projections: readonly ProjectionInfo[];
  readonly applied$: Subject<AppliedBatch>;
  /** Resolves once every projection's tables exist and its checkpoint is known. */
  readonly ready: Promise<void>;
  checkpoints(): Record<string, number>;
  failures(): Record<string, string>;
  /** Events skipped because a projection could not apply them (see quarantine.ts). */
  quarantines(): QuarantineSummary;
  start(): void;
  stop(): void;
  catchUp(options?: CatchUpOptions): Promise<void>;
  waitFor(position: number, names?: readonly string[] | null): Promise<void>;
  /** Projections whose next version is being built side by side, and how far it has come. */
  rebuilds(): Record<string, RebuildProgress>;
}
