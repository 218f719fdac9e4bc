import { foldOutputs } from '../../projections/analytics/fold-outputs';
import type { EventLog } from '../store/event-log';
import type { FoldedAnalyticsStore } from '../store/analytics';
import type { SqlSession } from '../store/sql';

/**
 * Log records read per batch, and the byte bound beside it (one EventsCaptured holds up to 10,000
 * events). Each batch is a few statements on the store, and ClickHouse writes a part per insert:
 * single-event records (EventCaptured, each its own request) need thousands to a batch, or the
 * store's per-statement cost, not the rows, sets the pace.
 */
const BATCH_RECORDS = 20_000;
const BATCH_BYTES = 16 * 1024 * 1024;
/** How long an idle fold waits before looking at the log again (appends also wake it). */
const IDLE_MS = 200;
/** After a failure (server unreachable), the wait before trying again. */
const RETRY_MS = 2000;

/** What the fold asks of the store it feeds. */
export type FoldTarget = Pick<FoldedAnalyticsStore, 'open' | 'foldedPosition' | 'persons' | 'sink'>;

export interface AnalyticsFoldDeps<S extends FoldTarget = FoldedAnalyticsStore> {
  log: EventLog;
  store: S;
  /** The read models the ingestion fold writes (what each batch is read back from). */
  readModels: SqlSession;
  /** Resolves once the ingestion fold has passed `position`. */
  ingested: (position: number) => Promise<void>;
  onError?: (err: Error) => void;
  /** Log records per batch (default BATCH_RECORDS): tests make batches of a few. */
  batchRecords?: number;
}

/**
 * The projection that folds the log into an analytics store outside the read models (ClickHouse):
 * per batch of records, once the ingestion fold has passed it, the fold's decisions read back
 * (projections/analytics/fold-outputs.ts), then the person mapping, then the events, each in one
 * insert. No checkpoint of its own: on start the position is read back from the events stored
 * (FoldedAnalyticsStore.foldedPosition), and a batch stored again after a crash changes nothing
 * (the sink is idempotent by (project, uuid), the mapping keeps the highest version).
 * One writer: run it in the process that folds the read models.
 */
export class AnalyticsFold<S extends FoldTarget = FoldedAnalyticsStore> {
  private position = 0;
  private running = false;
  private stopped = false;
  private wake: (() => void) | null = null;
  private readonly waiters = new Set<{ position: number; resolve: () => void }>();
  private loop: Promise<void> | null = null;
  /** Resolves on stop: a fold waiting for the ingestion fold (stopped too) lets go. */
  private stopping!: () => void;
  private readonly stopped$ = new Promise<void>((resolve) => (this.stopping = resolve));

  constructor(private readonly deps: AnalyticsFoldDeps<S>) {}

  /** The store it feeds. */
  get store(): S {
    return this.deps.store;
  }

  /** Where the fold has come to (the last batch stored, or skipped for holding no events). */
  get folded(): number {
    return this.position;
  }

  /** Opens the store and starts following the log from the position its rows show. */
  start(): Promise<void> {
    if (this.running) return Promise.resolve();
    this.running = true;
    const started = (async () => {
      await this.deps.store.open();
      this.position = await this.deps.store.foldedPosition();
    })();
    this.loop = started.then(() => this.follow());
    this.loop.catch((err: unknown) => this.deps.onError?.(err instanceof Error ? err : new Error(String(err))));
    return started;
  }

  /** Tells an idle fold the log has grown. */
  appended(): void {
    this.wake?.();
  }

  /** Resolves once the fold has passed `position`. */
  waitFor(position: number): Promise<void> {
    if (this.position >= position) return Promise.resolve();
    return new Promise((resolve) => this.waiters.add({ position, resolve }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping();
    this.wake?.();
    await this.loop?.catch(() => undefined);
  }

  /**
   * Folds the log up to its head (one step of follow: only follow calls it, so one batch at a time
   * is stored). The next batch is read, its rows read back and its person mapping stored while the
   * previous one's events are being stored: the store answers from another process (or thread), so
   * the waits overlap. Events are stored in order, each batch's once the one before is, so the
   * position read back on start never passes a batch not stored.
   */
  private async foldToHead(): Promise<void> {
    let storing: Promise<void> = Promise.resolve();
    let read = this.position;
    try {
      for (;;) {
        const records = await this.deps.log.readAll({ afterPosition: read, maxCount: this.deps.batchRecords ?? BATCH_RECORDS, maxBytes: BATCH_BYTES });
        if (records.length === 0 || this.stopped) break;
        const last = records[records.length - 1].position;
        await Promise.race([this.deps.ingested(last), this.stopped$]);
        if (this.stopped) break;
        const { events, persons } = await foldOutputs(this.deps.readModels, records, last);
        // The mapping goes in while the batch before stores its events: a mapping stored ahead of
        // its events is stored again with them after a crash (the highest version wins), and the
        // events wait for it, so a batch's mapping is always in when its events are.
        const mapped = persons.length > 0 ? this.deps.store.persons.map(persons) : Promise.resolve();
        mapped.catch(() => undefined);
        const previous = storing;
        storing = (async () => {
          await previous;
          await mapped;
          if (events.length > 0) await this.deps.store.sink.append(events, last);
          this.advance(last);
        })();
        // Awaited below; a failure meanwhile must not go unhandled.
        storing.catch(() => undefined);
        // One batch stored while the next is read, read back and mapped: no further ahead.
        await previous;
        read = last;
      }
    } finally {
      await storing;
    }
  }

  private advance(position: number): void {
    this.position = position;
    for (const waiter of this.waiters)
      if (waiter.position <= position) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
  }

  private async follow(): Promise<void> {
    while (!this.stopped) {
      let pause = IDLE_MS;
      try {
        await this.foldToHead();
      } catch (err) {
        this.deps.onError?.(err instanceof Error ? err : new Error(String(err)));
        pause = RETRY_MS;
      }
      if (this.stopped) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, pause);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
      this.wake = null;
    }
  }
}
