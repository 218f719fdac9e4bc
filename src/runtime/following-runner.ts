import { Subject, type Subscription } from 'rxjs';
import type { ReadModelProjection, StoreName } from '../store/read-model-projection';
import type { AppendNotifications } from '../store/append-notifications';
import type { EventLog } from '../store/event-log';
import type { ReadModelStore } from '../store/read-models';
import type { AppliedBatch, CatchUpOptions, RebuildProgress, Runner } from '../store/runner';
import { nextVersionSuffix } from './side-by-side/next-version';
import type { QuarantineSummary } from '../store/runner';
import { FOLLOWER_CUT_OFF_MS, readChanges } from './change-log';

export interface FollowingOptions {
  notifications?: AppendNotifications;
  /** How often checkpoints are read while nothing waits (and as a backstop to notices). */
  pollIntervalMs?: number;
  /** How often while a read-your-writes waiter is parked: the fold commits after the append's notice. */
  waitingPollMs?: number;
  /** Told once while `ready` waits for a folding process to create the read models. */
  onWaitingForFold?: () => void;
  /** A monotonic clock in ms (tests move it). */
  now?: () => number;
}

/** How often `ready` looks for the read models a folding process creates. */
const BOUND_POLL_MS = 250;

interface Waiter {
  position: number;
  names: readonly string[] | null;
  resolve: () => void;
}

/**
 * The runner of a process that serves the read models another process folds (ROLES without
 * `projections`): it folds nothing, follows the shared store's checkpoints, answers read-your-writes
 * from them, and tells in-memory caches what moved by reading the change rows the folding process
 * wrote between the checkpoints it saw (the same stubs the folding runner emits), so every process's
 * caches follow every write.
 */
export class FollowingRunner implements Runner {
  readonly applied$ = new Subject<AppliedBatch>();
  readonly ready: Promise<void>;
  private current: Record<string, number> = {};
  /** The fold version of each projection's checkpoint: a change is a rebuild that took over. */
  private versions: Record<string, number> = {};
  private building: Record<string, RebuildProgress> = {};
  private readonly waiters = new Set<Waiter>();
  private subscription: Subscription | null = null;
  private started = false;
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private again = false;
  private readonly now: () => number;
  /** When the last step that read the store and announced everything began. */
  private completeAt: number;

  constructor(
    private readonly log: EventLog,
    private readonly stores: Record<StoreName, ReadModelStore>,
    readonly projections: readonly ReadModelProjection[],
    private readonly options: FollowingOptions = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.completeAt = this.now();
    this.ready = this.bound();
  }

  /**
   * Resolves once a folding process has bound every projection (its tables and checkpoint exist):
   * before that there is nothing to serve. Until then the store is read again every BOUND_POLL_MS.
   */
  private async bound(): Promise<void> {
    let told = false;
    for (;;) {
      const startedAt = this.now();
      const stored = await this.read().catch(() => null);
      if (stored && this.projections.every((p) => p.name in stored.positions)) {
        this.current = stored.positions;
        this.versions = stored.versions;
        this.building = stored.building;
        this.completeAt = startedAt;
        return;
      }
      if (!told) this.options.onWaitingForFold?.();
      told = true;
      await new Promise((resolve) => setTimeout(resolve, BOUND_POLL_MS));
    }
  }

  checkpoints(): Record<string, number> {
    return { ...this.current };
  }

  /** The folding process reports its own failures; a follower has none. */
  failures(): Record<string, string> {
    return {};
  }

  quarantines(): QuarantineSummary {
    return { count: 0, latest: [] };
  }

  rebuilds(): Record<string, RebuildProgress> {
    return { ...this.building };
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.subscription = this.options.notifications?.moved$.subscribe(() => this.refresh()) ?? null;
    this.schedule();
  }

  stop(): void {
    this.started = false;
    this.subscription?.unsubscribe();
    this.subscription = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  async catchUp(options: CatchUpOptions = {}): Promise<void> {
    await this.ready;
    await this.waitFor(options.toPosition ?? (await this.log.head()));
  }

  waitFor(position: number, names: readonly string[] | null = null): Promise<void> {
    return new Promise((resolve) => {
      const waiter = { position, names, resolve };
      if (this.settle(waiter)) return;
      this.waiters.add(waiter);
      this.refresh();
    });
  }

  /** Reads the checkpoints now (coalescing calls), then wakes waiters and tells caches. */
  refresh(): void {
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        try {
          await this.step();
        } catch {
          // The store is out of reach for now: the next poll tries again.
        }
      } while (this.again);
    })().finally(() => {
      this.refreshing = null;
      this.schedule();
    });
  }

  private schedule(): void {
    // Started, it polls too (a backstop to notices, the only way without them); stopped, only for waiters.
    if (!this.started && !this.waiters.size) return;
    if (this.timer) clearTimeout(this.timer);
    const ms = this.waiters.size ? (this.options.waitingPollMs ?? 20) : (this.options.pollIntervalMs ?? 500);
    this.timer = setTimeout(() => this.refresh(), ms);
    this.timer.unref();
  }

  /**
   * Reads the checkpoints and announces what each projection applied since the last step. A
   * projection's checkpoint moves here only once its changes were announced, so a read of the
   * change rows that fails is tried again, not skipped. After a cut-off longer than the change rows
   * are surely kept, a projection that moved is announced as `unknown`: caches drop everything.
   */
  private async step(): Promise<void> {
    const startedAt = this.now();
    const next = await this.read();
    const cutOff = startedAt - this.completeAt > FOLLOWER_CUT_OFF_MS;
    for (const projection of this.projections) {
      const from = this.current[projection.name] ?? 0;
      const to = next.positions[projection.name] ?? 0;
      // Another version took over (built side by side): its rows are all new to the caches.
      const replaced = this.versions[projection.name] !== next.versions[projection.name];
      if ((replaced || to > from) && this.applied$.observed) {
        if (cutOff || replaced) this.applied$.next({ projection: projection.name, events: [], unknown: true });
        else await this.announce(projection, from, to);
      }
      if (projection.name in next.positions) this.current[projection.name] = to;
      else delete this.current[projection.name];
    }
    this.versions = next.versions;
    this.building = next.building;
    this.completeAt = startedAt;
    for (const waiter of this.waiters) if (this.settle(waiter)) this.waiters.delete(waiter);
  }

  /**
   * The stored checkpoints of this process's projections, whichever fold version wrote them (while
   * a new version is built side by side, the old one serves), and the rebuilds under way.
   */
  private async read(): Promise<{ positions: Record<string, number>; versions: Record<string, number>; building: Record<string, RebuildProgress> }> {
    const stored = new Map<string, { position: number; version: number }>();
    for (const store of new Set(this.projections.map((p) => this.stores[p.store]))) {
      const rows = await store.session.all<{ name: string; position: number; version: number }>('SELECT name, position, version FROM projection_checkpoints');
      for (const row of rows) stored.set(row.name, row);
    }
    const bound = this.projections.filter((p) => stored.has(p.name));
    // Stored by another version: this one is (or is about to be) built beside it by the folding process.
    const building = bound
      .filter((p) => stored.get(p.name)!.version !== p.version)
      .map((p) => [p.name, { version: p.version, position: stored.get(`${p.name}${nextVersionSuffix(p)}`)?.position ?? 0 }] as const);
    return {
      positions: Object.fromEntries(bound.map((p) => [p.name, stored.get(p.name)!.position])),
      versions: Object.fromEntries(bound.map((p) => [p.name, stored.get(p.name)!.version])),
      building: Object.fromEntries(building),
    };
  }

  /** What the projection applied in (from, to], as the folding process recorded it (see change-log.ts). */
  private async announce(projection: ReadModelProjection, from: number, to: number): Promise<void> {
    const events = await readChanges(this.stores[projection.store].session, projection.name, from, to);
    if (events.length) this.applied$.next({ projection: projection.name, events });
  }

  private settle(waiter: Waiter): boolean {
    const names = waiter.names ?? this.projections.map((p) => p.name);
    if (!names.every((n) => (this.current[n] ?? 0) >= waiter.position)) return false;
    waiter.resolve();
    return true;
  }
}
