import { Subject, type Subscription } from 'rxjs';
import type { RecordedEvent } from '../../streams';
import type { Projection, SqlStore, StoreName } from '../../projections/projection';
import type { EventLog } from '../store/event-log';
import type { SqlDatabase } from '../store/sql-database';
import { cachedStore } from './cached-store';
import {
  combineSummaries,
  createQuarantineTable,
  mergeSummary,
  quarantineRecord,
  quarantineStatements,
  type QuarantinedEvent,
  type QuarantineSummary,
} from './quarantine';
import { isStorageFault } from './storage-fault';

interface Bound {
  projection: Projection;
  db: SqlDatabase;
  store: SqlStore;
  handles: ReadonlySet<string> | null;
  checkpoint: number;
  failure: Error | null;
  quarantine: QuarantineSummary;
  /** Stop applying past this position (replay/verify to a fixed point). */
  until: number;
  applyTx: (events: RecordedEvent[]) => number;
}

interface Waiter {
  position: number;
  names: readonly string[] | null;
  resolve: () => void;
  reject: (err: Error) => void;
}

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
}

/** The runner as the rest of the runtime sees it: in this thread, or in a worker thread. */
export interface Runner {
  readonly projections: readonly Projection[];
  readonly applied$: Subject<AppliedBatch>;
  checkpoints(): Record<string, number>;
  failures(): Record<string, string>;
  /** Events skipped because a projection could not apply them (see quarantine.ts). */
  quarantines(): QuarantineSummary;
  start(): void;
  stop(): void;
  catchUp(options?: { toPosition?: number; until?: Record<string, number>; onProgress?: (position: number, head: number) => void }): Promise<void>;
  waitFor(position: number, names?: readonly string[] | null): Promise<void>;
}

export interface RunnerOptions {
  batchSize?: number;
  onError?: (projection: string, err: Error) => void;
  onQuarantine?: (event: QuarantinedEvent) => void;
}

/**
 * Log data per batch (JSON text): ~40 full /batch/ requests. A batch is parsed whole and applied
 * in one transaction, so after a backlog of large EventsCaptured records a limit in records alone
 * let one batch take gigabytes.
 */
const BATCH_BYTES = 16 * 1024 * 1024;

const CHECKPOINTS = `CREATE TABLE IF NOT EXISTS projection_checkpoints (
  name TEXT PRIMARY KEY, position INTEGER NOT NULL, version INTEGER NOT NULL)`;

/**
 * Feeds the log, in order, to every projection. Each projection's writes and its checkpoint commit in
 * one transaction that first re-reads the checkpoint, so a crash or a second runner on the same store
 * never applies an event twice or skips one.
 */
export class ProjectionRunner implements Runner {
  private readonly bound: Bound[];
  private readonly waiters = new Set<Waiter>();
  private subscription: Subscription | null = null;
  private readonly batchSize: number;
  /** After each committed batch: which projection applied which events (in-memory caches listen here). */
  readonly applied$ = new Subject<AppliedBatch>();
  /** After every processed batch, whether or not anything was applied (checkpoints moved). */
  readonly progress$ = new Subject<void>();

  constructor(
    private readonly log: EventLog,
    stores: Record<StoreName, SqlDatabase>,
    projections: readonly Projection[],
    private readonly options: RunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 2000;
    this.bound = projections.map((projection) => this.bind(projection, stores[projection.store]));
  }

  get projections(): readonly Projection[] {
    return this.bound.map((b) => b.projection);
  }

  checkpoints(): Record<string, number> {
    return Object.fromEntries(this.bound.map((b) => [b.projection.name, b.checkpoint]));
  }

  failures(): Record<string, string> {
    return Object.fromEntries(this.bound.filter((b) => b.failure).map((b) => [b.projection.name, b.failure!.message]));
  }

  quarantines(): QuarantineSummary {
    return combineSummaries(this.bound.map((b) => b.quarantine));
  }

  /** Follow the log live until stop(). */
  start(): void {
    if (this.subscription) return;
    const from = Math.min(...this.bound.map((b) => b.checkpoint)) + 1;
    this.subscription = this.log.subscribeBatches({ fromPosition: from, batchSize: this.batchSize, maxBytes: BATCH_BYTES }).subscribe({
      next: (batch) => this.process(batch),
      error: (err: Error) => this.failAll(err),
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = null;
  }

  /** Apply everything up to `toPosition` (default: the head now), optionally per projection. */
  async catchUp(options: { toPosition?: number; until?: Record<string, number>; onProgress?: (position: number, head: number) => void } = {}) {
    const head = options.toPosition ?? (await this.log.head());
    for (const b of this.bound) b.until = options.until?.[b.projection.name] ?? head;
    try {
      let position = Math.min(...this.bound.map((b) => b.checkpoint)) + 1;
      while (position <= head) {
        const batch = await this.log.readAll({ fromPosition: position, toPosition: head, maxCount: this.batchSize, maxBytes: BATCH_BYTES });
        if (batch.length === 0) break;
        this.process(batch);
        position = batch[batch.length - 1].position + 1;
        options.onProgress?.(position - 1, head);
      }
    } finally {
      for (const b of this.bound) b.until = Number.MAX_SAFE_INTEGER;
    }
  }

  /** Resolves once the named projections (default: all) have applied `position`: read-your-writes. */
  waitFor(position: number, names: readonly string[] | null = null): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { position, names, resolve, reject };
      if (!this.settle(waiter)) this.waiters.add(waiter);
    });
  }

  private process(batch: RecordedEvent[]): void {
    for (const b of this.bound) {
      if (b.failure) continue;
      try {
        const before = b.checkpoint;
        b.checkpoint = b.applyTx(batch);
        if (b.checkpoint > before && this.applied$.observed) {
          const events = batch.filter((e) => e.position > before && e.position <= b.checkpoint && (!b.handles || b.handles.has(e.type)));
          if (events.length) this.applied$.next({ projection: b.projection.name, events });
        }
      } catch (err) {
        b.failure = err instanceof Error ? err : new Error(String(err));
        this.options.onError?.(b.projection.name, b.failure);
      }
    }
    for (const waiter of this.waiters) if (this.settle(waiter)) this.waiters.delete(waiter);
    this.progress$.next();
  }

  private settle(waiter: Waiter): boolean {
    const relevant = this.bound.filter((b) => !waiter.names || waiter.names.includes(b.projection.name));
    const failed = relevant.find((b) => b.failure);
    if (failed) {
      waiter.reject(new Error(`projection ${failed.projection.name} has stopped: ${failed.failure!.message}`));
      return true;
    }
    if (relevant.every((b) => b.checkpoint >= waiter.position)) {
      waiter.resolve();
      return true;
    }
    return false;
  }

  private failAll(err: Error) {
    for (const b of this.bound) b.failure ??= err;
    for (const waiter of this.waiters) this.settle(waiter);
    this.waiters.clear();
  }

  private bind(projection: Projection, db: SqlDatabase): Bound {
    db.exec(CHECKPOINTS);
    createQuarantineTable(db);
    const quarantines = quarantineStatements(db);
    const store = cachedStore(db);
    const name = projection.name;
    const read = db.prepare<[string], { position: number; version: number }>(
      'SELECT position, version FROM projection_checkpoints WHERE name = ?',
    );
    const write = db.prepare('INSERT OR REPLACE INTO projection_checkpoints (name, position, version) VALUES (?, ?, ?)');
    const stored = read.get(name);
    if (stored && stored.version !== projection.version) {
      // A changed fold means the old rows are wrong: rebuild this projection from the first event.
      db.transaction(() => {
        for (const t of projection.tables) db.exec(`DROP TABLE IF EXISTS ${t.name}`);
        quarantines.forget(name);
        write.run(name, 0, projection.version);
      })();
    }
    projection.setup(store);
    const handles = projection.handles ? new Set(projection.handles) : null;
    const bound: Bound = {
      projection,
      db,
      store,
      handles,
      checkpoint: stored && stored.version === projection.version ? stored.position : 0,
      failure: null,
      quarantine: quarantines.summary(name),
      until: Number.MAX_SAFE_INTEGER,
      applyTx: () => 0,
    };
    const fold = (events: RecordedEvent[], apply: (event: RecordedEvent) => void) => {
      const current = read.get(name)?.position ?? 0;
      let last = current;
      for (const event of events) {
        if (event.position <= current) continue;
        if (event.position > bound.until) break;
        if (!handles || handles.has(event.type)) apply(event);
        last = event.position;
      }
      if (last !== current) write.run(name, last, projection.version);
      return last;
    };
    const tx = db.transaction((events: RecordedEvent[]) => fold(events, (event) => projection.apply(event, store)));

    // After a batch threw: the same batch again, each event (and each part) in a savepoint, so one
    // that throws is rolled back alone, recorded and skipped. Deterministic: the same log and fold
    // quarantine the same events, however the log was cut into batches.
    const savepoint = db.transaction((apply: () => void) => apply());
    const rolledBack = () => projection.rolledBack?.(store);
    const attempt = (apply: () => void): unknown => {
      try {
        savepoint(apply);
        return null;
      } catch (err) {
        rolledBack();
        if (isStorageFault(err)) throw err;
        return err ?? new Error('undefined thrown');
      }
    };
    let fresh: QuarantinedEvent[] = [];
    const quarantine = (event: RecordedEvent, part: number | null, err: unknown) => {
      const record = quarantineRecord(name, event, part, err);
      quarantines.insert(record);
      projection.quarantined?.(event, part, record.error, store);
      fresh.push(record);
    };
    const carefulTx = db.transaction((events: RecordedEvent[]) =>
      fold(events, (event) => {
        const err = attempt(() => projection.apply(event, store));
        if (err === null) return;
        const parts = projection.applyPart ? (projection.parts?.(event) ?? 0) : 0;
        if (parts === 0) return quarantine(event, null, err);
        for (let i = 0; i < parts; i++) {
          const partErr = attempt(() => projection.applyPart!(event, i, store));
          if (partErr !== null) quarantine(event, i, partErr);
        }
      }),
    );
    bound.applyTx = (events) => {
      try {
        return tx.immediate(events);
      } catch (err) {
        rolledBack();
        if (isStorageFault(err)) throw err;
      }
      fresh = [];
      let last: number;
      try {
        last = carefulTx.immediate(events);
      } catch (err) {
        rolledBack();
        throw err;
      }
      bound.quarantine = mergeSummary(bound.quarantine, fresh);
      for (const record of fresh) this.options.onQuarantine?.(record);
      return last;
    };
    return bound;
  }
}
