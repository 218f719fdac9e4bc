import { Subject } from 'rxjs';
import type { RecordedEvent } from '../../streams';
import type { ReadModelProjection, StoreName, TableSchema } from '../store/read-model-projection';
import type { SqlSession } from '../store/sql';
import type { AppendNotifications } from '../store/append-notifications';
import type { EventLog } from '../store/event-log';
import type { ReadModelStore, ReadModelTransaction } from '../store/read-models';
import { combineSummaries, forgetQuarantines, insertQuarantine, mergeSummary, QUARANTINE_SCHEMA, quarantineRecord, quarantineSummary } from './quarantine';
import { isStorageFault } from './storage-fault';
import { CHANGES_SCHEMA, type ChangeRecorder } from './change-log';
import type { AppliedBatch, CatchUpOptions, QuarantinedEvent, QuarantineSummary, RebuildProgress, Runner } from '../store/runner';
import { LaneBacklog, type LaneKey, type LaneSlice } from './lane-backlog';
import { applyRound } from './lane-rounds';
import { SideBySideRebuild } from './side-by-side/rebuild';
import {
  CHECKPOINTS_SCHEMA,
  FORGET_LANES_BEHIND,
  LANES_SCHEMA,
  projectionLock,
  readCheckpoint,
  READ_LANE,
  READ_LANES,
  WRITE_CHECKPOINT,
  WRITE_LANE,
} from './checkpoints';

export { CHECKPOINTS_SCHEMA, readCheckpoint } from './checkpoints';

interface Bound {
  projection: ReadModelProjection;
  store: ReadModelStore;
  handles: ReadonlySet<string> | null;
  checkpoint: number;
  failure: Error | null;
  quarantine: QuarantineSummary;
  /** Stop applying past this position (replay/verify to a fixed point). */
  until: number;
  /** A laned projection's events read and not applied in every lane yet (null: not laned). */
  lanes: LaneBacklog | null;
  /**
   * Its tables were folded by another version: they keep serving, unchanged, while the next
   * version is built beside them (side-by-side/rebuild.ts), and this runner applies nothing to them.
   */
  frozen: boolean;
  /** The version being built side by side, to take over these tables (null: none). */
  upgradeTo: ReadModelProjection | null;
}

interface Waiter {
  position: number;
  names: readonly string[] | null;
  resolve: () => void;
  reject: (err: Error) => void;
}




export interface RunnerOptions {
  batchSize?: number;
  onError?: (projection: string, err: Error) => void;
  onQuarantine?: (event: QuarantinedEvent) => void;
  /** Wakes the live loop when the log moved; without it (or should a notice be lost) the loop polls. */
  notifications?: AppendNotifications;
  /** On shared read models: records what each batch changed, for the processes that follow (see change-log.ts). */
  changes?: ChangeRecorder;
  pollIntervalMs?: number;
  /**
   * A projection whose version changed: false rebuilds it in place (its tables dropped, folded again
   * before anything reads them: a fresh store, a replay); true (the default) builds the new version
   * side by side while the old tables keep serving.
   */
  sideBySide?: boolean;
  /** A laned projection holding this many events unapplied stops the reading until it has caught up (default MAX_HELD_EVENTS). */
  maxHeldEvents?: number;
}

/**
 * Log data per batch (JSON text): ~40 full /batch/ requests. A batch is parsed whole and applied
 * in one transaction, so after a backlog of large EventsCaptured records a limit in records alone
 * let one batch take gigabytes.
 */
const BATCH_BYTES = 16 * 1024 * 1024;

/** A laned projection holding this many events unapplied stops the reading until it has caught up. */
const MAX_HELD_EVENTS = 8_000;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const SCHEMA_LOCK = 'schema';

/**
 * Feeds the log, in order, to every projection. Each projection's writes and its checkpoint commit in
 * one transaction that first takes the projection's lock and re-reads the checkpoint, so a crash or a
 * second runner on the same store never applies an event twice or skips one.
 */
export class ProjectionRunner implements Runner {
  private bound: Bound[] = [];
  private rebuilding: SideBySideRebuild[] = [];
  private readonly waiters = new Set<Waiter>();
  private readonly batchSize: number;
  private readonly maxHeldEvents: number;
  private following = false;
  /** The log has moved since it was last read (told by the append notices). */
  // Stryker disable next-line BooleanLiteral: equivalent, cleared before every read of the log, and nothing asks it before the first
  private logMoved = false;
  private stopFollowing: () => void = () => {};
  /** Batches are applied one at a time (the live loop and a catch-up may both feed the runner). */
  private queue: Promise<void> = Promise.resolve();
  readonly ready: Promise<void>;
  /** After each committed batch: which projection applied which events (in-memory caches listen here). */
  readonly applied$ = new Subject<AppliedBatch>();
  /** After every processed batch, whether or not anything was applied (checkpoints moved). */
  readonly progress$ = new Subject<void>();

  constructor(
    private readonly log: EventLog,
    stores: Record<StoreName, ReadModelStore>,
    readonly projections: readonly ReadModelProjection[],
    private readonly options: RunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 2000;
    this.maxHeldEvents = options.maxHeldEvents ?? MAX_HELD_EVENTS;
    options.notifications?.moved$.subscribe(() => (this.logMoved = true));
    this.ready = (async () => {
      for (const projection of projections) this.bound.push(await this.bind(projection, stores[projection.store]));
      for (const b of this.bound.filter((b) => b.upgradeTo)) this.rebuilding.push(await SideBySideRebuild.begin(b.upgradeTo!, b.store, this.rebuildHost(stores)));
    })();
    // Surfaced through ready's rejection and failures(); never an unhandled rejection.
    this.ready.catch((err: Error) => {
      // Stryker disable next-line MethodExpression,ArrowFunction,ConditionalExpression: equivalent, a projection bound twice is reported once (checkpoints() and failures() read the first), with no quarantines
      for (const projection of projections.filter((p) => !this.bound.some((b) => b.projection === p))) {
        const store = stores[projection.store];
        // Stryker disable next-line BooleanLiteral: equivalent, a failed projection is skipped whether frozen or not
        this.bound.push({ projection, store, handles: null, checkpoint: 0, failure: err, quarantine: { count: 0, latest: [] }, until: 0, lanes: null, frozen: false, upgradeTo: null });
      }
      this.failAll(err);
    });
  }

  checkpoints(): Record<string, number> {
    return Object.fromEntries(this.projections.map((p) => [p.name, this.bound.find((b) => b.projection.name === p.name)?.checkpoint ?? 0]));
  }

  failures(): Record<string, string> {
    return Object.fromEntries(this.bound.filter((b) => b.failure).map((b) => [b.projection.name, b.failure!.message]));
  }

  quarantines(): QuarantineSummary {
    return combineSummaries(this.bound.map((b) => b.quarantine));
  }

  rebuilds(): Record<string, RebuildProgress> {
    return Object.fromEntries(
      this.rebuilding.map((r) => [r.projection.name, r.progress()]),
    );
  }

  /** Follow the log live until stop(); projections being rebuilt are built meanwhile and take over at the head. */
  start(): void {
    if (this.following) return;
    this.following = true;
    void this.follow();
    void this.ready.then(
      () => {
        for (const r of this.rebuilding) r.follow();
      },
      () => undefined,
    );
  }

  stop(): void {
    this.following = false;
    for (const r of this.rebuilding) r.stop();
    this.stopFollowing();
  }

  /** Apply everything up to `toPosition` (default: the head now), optionally per projection. */
  async catchUp(options: CatchUpOptions = {}) {
    await this.ready;
    const head = options.toPosition ?? (await this.log.head());
    if (options.rebuilds !== 'background') {
      for (const r of [...this.rebuilding]) await r.finish(head, options.onProgress);
    }
    for (const b of this.bound) b.until = options.until?.[b.projection.name] ?? head;
    try {
      let after = this.resumeAfter();
      while (after !== null && after < head) {
        if (this.backlogFull()) {
          await this.process([]);
          continue;
        }
        this.logMoved = false;
        const batch = await this.log.readAll({ afterPosition: after, toPosition: head, maxCount: this.batchSize, maxBytes: BATCH_BYTES });
        if (batch.length === 0) break;
        await this.process(batch);
        after = batch[batch.length - 1].position;
        options.onProgress?.(after, head, batch);
        await yieldToLoop();
      }
      // Laned projections apply what they hold, a round at a time.
      while (this.hasBacklog()) {
        await this.process([]);
        await yieldToLoop();
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

  /** Where the next read starts: after the lowest checkpoint of a projection still running (null: none is). */
  private resumeAfter(): number | null {
    const running = this.bound.filter((b) => !b.failure && !b.frozen);
    return running.length ? Math.min(...running.map((b) => b.lanes?.readTo ?? b.checkpoint)) : null;
  }

  /** A laned projection still holds events to apply. */
  private hasBacklog(): boolean {
    return this.bound.some((b) => !b.failure && b.lanes !== null && b.lanes.pending > 0);
  }

  /** A laned projection holds so much that reading more would only grow memory. */
  private backlogFull(): boolean {
    return this.bound.some((b) => !b.failure && b.lanes !== null && b.lanes.pending >= this.maxHeldEvents);
  }

  /**
   * The live loop: read a batch, apply it, repeat; when the log has nothing new, wait for an append
   * notice or the poll. Reading only after the previous batch is applied bounds memory however far
   * behind the projections are.
   */
  private async follow(): Promise<void> {
    try {
      await this.ready;
    } catch {
      // Every projection has failed (ready rejected): nothing to follow.
      return;
    }
    // Stryker disable next-line BooleanLiteral: equivalent, set at the top of every turn of the loop
    let dirty = true;
    let wake: (() => void) | null = null;
    const poke = () => {
      dirty = true;
      const w = wake;
      wake = null;
      w?.();
    };
    const notices = this.options.notifications?.moved$.subscribe(poke);
    const timer = setInterval(poke, this.options.pollIntervalMs ?? 100);
    timer.unref();
    this.stopFollowing = () => {
      notices?.unsubscribe();
      clearInterval(timer);
      poke();
    };
    while (this.following) {
      dirty = false;
      const after = this.resumeAfter();
      // Every projection frozen while its next version is built: nothing to read until one takes over.
      // Stryker disable next-line ConditionalExpression: equivalent, going on would only wait for wakes that find nothing to read (the stop stays the same)
      if (after === null && this.rebuilding.length === 0) break;
      let batch: RecordedEvent[] = [];
      try {
        this.logMoved = false;
        if (after !== null && !this.backlogFull()) batch = await this.log.readAll({ afterPosition: after, maxCount: this.batchSize, maxBytes: BATCH_BYTES });
      } catch {
        // The log is unreachable for now (its adapter reports that to /_health): try again at the next poll.
      }
      // Between two rounds of a laned projection the log is read again, so the events appended
      // meanwhile join their lanes' next round.
      if (batch.length > 0 || this.hasBacklog()) {
        await this.process(batch);
        // An embedded store answers without I/O: without this, a backlog would hold the thread.
        await yieldToLoop();
        continue;
      }
      if (!dirty && this.following) await new Promise<void>((resolve) => (wake = resolve));
    }
  }

  private process(batch: RecordedEvent[]): Promise<void> {
    return this.inTurn(() => this.processNow(batch));
  }

  /** Runs `work` once the batch in progress (if any) is applied, before the next. */
  private inTurn(work: () => Promise<void>): Promise<void> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async processNow(batch: RecordedEvent[]): Promise<void> {
    for (const b of this.bound) {
      if (b.failure || b.frozen) continue;
      if (b.lanes) {
        await this.applyRound(b, b.lanes, batch);
        continue;
      }
      // Stryker disable next-line ConditionalExpression: equivalent, an empty batch moves nothing: this spares a transaction
      if (batch.length === 0) continue;
      try {
        const before = b.checkpoint;
        b.checkpoint = (await this.applyTx(b, batch)).checkpoint;
        // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent, a shortcut: without a move the filter finds nothing, without listeners nobody hears
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

  /** A round of a laned projection's lanes (lane-rounds.ts); a failure stops the projection. */
  private async applyRound(b: Bound, lanes: LaneBacklog, batch: RecordedEvent[]): Promise<void> {
    try {
      await applyRound(lanes, batch, b.until, {
        applySlice: async (slice, stop) => {
          const { checkpoint, done } = await this.applyTx(b, slice.events, slice, stop);
          return { checkpoint, done: done! };
        },
        writeCheckpoint: (position) => this.writeCheckpoint(b, position),
        checkpoint: () => b.checkpoint,
        committed: (checkpoint, events) => {
          b.checkpoint = checkpoint;
          if (events && this.applied$.observed) this.applied$.next({ projection: b.projection.name, events });
        },
        logMoved: () => this.logMoved,
        notified: this.options.notifications !== undefined,
      });
    } catch (err) {
      b.failure = err instanceof Error ? err : new Error(String(err));
      this.options.onError?.(b.projection.name, b.failure);
    }
  }

  private writeCheckpoint(b: Bound, position: number): Promise<number> {
    const { projection, store } = b;
    return store.transaction(
      async (tx) => {
        // Stryker disable next-line OptionalChaining,LogicalOperator: equivalent, bind() has written the checkpoint
        const stored = (await readCheckpoint(tx, projection.name))?.position ?? 0;
        // Stryker disable next-line EqualityOperator: equivalent, writing the stored position again changes nothing
        if (position <= stored) return stored;
        await tx.run(WRITE_CHECKPOINT, projection.name, position, projection.version);
        await tx.run(FORGET_LANES_BEHIND, projection.name, position);
        return position;
      },
      { lock: projectionLock(projection) },
    );
  }

  /** What a side-by-side rebuild of one of this runner's projections needs of it (side-by-side/rebuild.ts). */
  private rebuildHost(stores: Record<StoreName, ReadModelStore>) {
    return {
      runnerFor: (next: ReadModelProjection) =>
        new ProjectionRunner(this.log, stores, [next], {
          batchSize: this.options.batchSize,
          onError: this.options.onError,
          onQuarantine: this.options.onQuarantine,
          notifications: this.options.notifications,
          pollIntervalMs: this.options.pollIntervalMs,
          // Stryker disable next-line BooleanLiteral: equivalent, the next version's name carries its version, so its stored checkpoint never has another
          sideBySide: false,
        }),
      head: () => this.log.head(),
      following: () => this.following,
      inTurn: (work: () => Promise<void>) => this.inTurn(work),
      // The rebuild's position is part of this runner's progress (/_health, the projection thread's reports).
      progressed: () => this.progress$.next(),
      tookOver: async (r: SideBySideRebuild) => {
        const bound = await this.bind(r.projection, r.store);
        this.bound = this.bound.map((b) => (b.projection.name === r.projection.name ? bound : b));
        this.rebuilding = this.rebuilding.filter((x) => x !== r);
        // Caches hear that everything of the projection may have changed.
        this.applied$.next({ projection: r.projection.name, events: [], unknown: true });
        for (const waiter of this.waiters) if (this.settle(waiter)) this.waiters.delete(waiter);
        this.progress$.next();
      },
    };
  }

  /** Resolves once the batch in progress (if any) is applied. */
  idle(): Promise<void> {
    return this.queue;
  }

  private settle(waiter: Waiter): boolean {
    const relevant = this.bound.filter((b) => !waiter.names || waiter.names.includes(b.projection.name));
    const failed = relevant.find((b) => b.failure);
    if (failed) {
      waiter.reject(new Error(`projection ${failed.projection.name} has stopped: ${failed.failure!.message}`));
      // Stryker disable next-line BooleanLiteral: equivalent, a settled promise ignores settling again: true only lets the waiter go
      return true;
    }
    if (relevant.length > 0 && relevant.every((b) => b.checkpoint >= waiter.position)) {
      waiter.resolve();
      // Stryker disable next-line BooleanLiteral: equivalent, a settled promise ignores settling again: true only lets the waiter go
      return true;
    }
    return false;
  }

  private failAll(err: Error) {
    for (const b of this.bound) b.failure ??= err;
    for (const waiter of this.waiters) waiter.reject(err);
    this.waiters.clear();
  }

  private async bind(projection: ReadModelProjection, store: ReadModelStore): Promise<Bound> {
    const name = projection.name;
    const bound = await store.transaction(
      async (tx) => {
        await tx.createTables(this.options.changes ? [CHECKPOINTS_SCHEMA, QUARANTINE_SCHEMA, CHANGES_SCHEMA] : [CHECKPOINTS_SCHEMA, QUARANTINE_SCHEMA]);
        const stored = await readCheckpoint(tx, name);
        const current = stored && stored.version === projection.version;
        if (projection.lane) await tx.createTables([LANES_SCHEMA]);
        if (stored && !current && this.options.sideBySide !== false) {
          // The old version keeps serving (folded on by the previous version's fold when the
          // projection kept it, else as it is); this one is built beside it (SideBySideRebuild).
          if (projection.previous?.version === stored.version) return 'previous' as const;
          return { checkpoint: stored.position, quarantine: await quarantineSummary(tx, name), lanes: null, frozen: true };
        }
        if (stored && !current) {
          // A changed fold means the old rows are wrong: rebuild this projection from the first event.
          await tx.dropTables(projection.tables.map((t) => t.name));
          await forgetQuarantines(tx, name);
          if (projection.lane) await tx.run(FORGET_LANES_BEHIND, name, Number.MAX_SAFE_INTEGER);
        }
        // Recorded at once, not at the first applied event: processes following a shared store
        // learn from it that this version's tables exist.
        if (!current) await tx.run(WRITE_CHECKPOINT, name, 0, projection.version);
        await tx.createTables(projection.tables);
        const lanes = projection.lane ? new Map((await tx.all<{ lane: LaneKey; position: number }>(READ_LANES, name)).map((r) => [r.lane, r.position])) : null;
        return { checkpoint: current ? stored.position : 0, quarantine: await quarantineSummary(tx, name), lanes, frozen: false };
      },
      // Schema changes of runners starting together (in several processes) take turns.
      { lock: [SCHEMA_LOCK, projectionLock(projection)] },
    );
    if (bound === 'previous') return { ...(await this.bind(projection.previous!, store)), upgradeTo: projection };
    const { checkpoint, quarantine, lanes, frozen } = bound;
    const handles = projection.handles ? new Set(projection.handles) : null;
    return {
      projection,
      store,
      handles,
      checkpoint,
      failure: null,
      quarantine,
      until: Number.MAX_SAFE_INTEGER,
      frozen,
      upgradeTo: frozen ? projection : null,
      lanes: lanes ? new LaneBacklog(checkpoint, lanes, { laneOf: (event) => (handles && !handles.has(event.type) ? null : projection.lane!(event)), partsOf: (event) => projection.parts?.(event) ?? 1 }) : null,
    };
  }

  /**
   * One batch (or one lane's slice) for one projection, in one transaction. If it throws, it is
   * applied again with each event (and each part) in a savepoint, so one that throws is rolled back
   * alone, recorded and skipped. Deterministic: the same log and fold quarantine the same events,
   * however the log was cut into batches or slices. A slice may stop early (`stop`, asked after
   * each event): it then reports the part it applied.
   */
  private async applyTx(b: Bound, events: RecordedEvent[], slice: LaneSlice | null = null, stop?: () => Promise<boolean>): Promise<{ checkpoint: number; done: LaneSlice | null }> {
    const { projection, store, handles } = b;
    const name = projection.name;
    /** The batch's events the projection applies, in order; and the position the checkpoint moves to. */
    const select = (current: number) => {
      const chosen: RecordedEvent[] = [];
      let last = current;
      for (const event of events) {
        if (event.position <= current) continue;
        if (event.position > b.until) break;
        if (!handles || handles.has(event.type)) chosen.push(event);
        last = event.position;
      }
      return { chosen, last };
    };
    /** Applies `chosen` in order; answers how many it applied (all, unless `stop` said so). */
    type ApplyAll = (chosen: RecordedEvent[]) => Promise<number>;
    /**
     * A lane's slice: its events past both the checkpoint and the lane's own position (re-read here,
     * as a second runner may have moved them); the lane's position and the checkpoint the slice
     * completes are written with its rows.
     */
    const foldSlice = async (tx: ReadModelTransaction, slice: LaneSlice, applyAll: ApplyAll) => {
      // Stryker disable next-line OptionalChaining: equivalent, bind() has written the checkpoint
      const current = (await readCheckpoint(tx, name))?.position ?? 0;
      const laneAt = Math.max(current, (await tx.get<{ position: number }>(READ_LANE, name, slice.lane))?.position ?? 0);
      const skipped = slice.events.findIndex((event) => event.position > laneAt);
      const chosen = skipped === -1 ? [] : slice.events.slice(skipped);
      const applied = chosen.length ? await applyAll(chosen) : 0;
      const done: LaneSlice = { lane: slice.lane, events: slice.events.slice(0, slice.events.length - chosen.length + applied) };
      await tx.run(WRITE_LANE, name, slice.lane, done.events[done.events.length - 1].position);
      const next = b.lanes!.checkpointAfter(done);
      // Stryker disable next-line EqualityOperator: equivalent, writing the stored checkpoint again changes nothing
      if (next > current) {
        await tx.run(WRITE_CHECKPOINT, name, next, projection.version);
        await tx.run(FORGET_LANES_BEHIND, name, next);
      }
      if (this.options.changes && applied) await this.options.changes.record(tx, name, chosen.slice(0, applied));
      return { checkpoint: Math.max(next, current), done };
    };
    const fold = async (tx: ReadModelTransaction, applyAll: ApplyAll) => {
      if (slice) return foldSlice(tx, slice, applyAll);
      // Stryker disable next-line OptionalChaining: equivalent, bind() has written the checkpoint
      const current = (await readCheckpoint(tx, name))?.position ?? 0;
      const { chosen, last } = select(current);
      if (chosen.length) await applyAll(chosen);
      // Stryker disable next-line ConditionalExpression: equivalent, writing the stored checkpoint again changes nothing
      if (last !== current) await tx.run(WRITE_CHECKPOINT, name, last, projection.version);
      // Shared read models: what this batch applied, for the processes that follow the store.
      if (this.options.changes && chosen.length) await this.options.changes.record(tx, name, chosen);
      return { checkpoint: last, done: null };
    };
    const inTurn = async (chosen: RecordedEvent[], apply: (event: RecordedEvent) => Promise<void>) => {
      let applied = 0;
      for (const event of chosen) {
        await apply(event);
        applied++;
        if (stop && (await stop())) break;
      }
      return applied;
    };
    const lock = { lock: projectionLock(projection) };
    try {
      // A projection that can overlap its storage's work on one event with the fold of the next
      // does so here; the savepoint path below applies event by event.
      return await store.transaction(
        (tx) =>
          fold(tx, (chosen) => (projection.applyAll ? projection.applyAll(chosen, tx, stop) : inTurn(chosen, (event) => projection.apply(event, tx)))),
        lock,
      );
    } catch (err) {
      projection.rolledBack?.();
      if (isStorageFault(err)) throw err;
    }

    const fresh: QuarantinedEvent[] = [];
    const attempt = async (tx: ReadModelTransaction, apply: () => Promise<void>): Promise<unknown> => {
      try {
        await tx.savepoint(apply);
        return null;
      } catch (err) {
        projection.rolledBack?.();
        if (isStorageFault(err)) throw err;
        return err ?? new Error('undefined thrown');
      }
    };
    const quarantine = async (tx: ReadModelTransaction, event: RecordedEvent, part: number | null, err: unknown) => {
      const record = quarantineRecord(name, event, part, err);
      await insertQuarantine(tx, record);
      await projection.quarantined?.(event, part, record.error, tx);
      fresh.push(record);
    };
    let result: { checkpoint: number; done: LaneSlice | null };
    try {
      result = await store.transaction(
        (tx) =>
          fold(tx, (chosen) =>
            inTurn(chosen, async (event) => {
              const err = await attempt(tx, () => projection.apply(event, tx));
              if (err === null) return;
              const parts = projection.applyPart ? (projection.parts?.(event) ?? 0) : 0;
              if (parts === 0) return quarantine(tx, event, null, err);
              for (let i = 0; i < parts; i++) {
                const partErr = await attempt(tx, () => projection.applyPart!(event, i, tx));
                if (partErr !== null) await quarantine(tx, event, i, partErr);
              }
            }),
          ),
        lock,
      );
    } catch (err) {
      projection.rolledBack?.();
      throw err;
    }
    b.quarantine = mergeSummary(b.quarantine, fresh);
    for (const record of fresh) this.options.onQuarantine?.(record);
    return result;
  }
}
