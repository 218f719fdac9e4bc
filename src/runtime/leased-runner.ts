import { Subject, type Subscription } from 'rxjs';
import type { Leases } from '../store/leases';
import type { FollowingRunner } from './following-runner';
import { runWhileLeased, type LeasedRole, type LeasedRoleEvents } from './leased-role';
import type { AppliedBatch, RebuildProgress, Runner } from '../store/runner';

/** A runner that folds: in this thread, or in a worker thread (which `close` ends). */
export type FoldingRunner = Runner & { close?(): Promise<void> };
import type { QuarantineSummary } from '../store/runner';

/** The lease the folding process of a deployment holds. */
export const PROJECTIONS_LEASE = 'projections';

/**
 * The runner of a process with the `projections` role over shared read models: it follows the store
 * as any API process does, and folds only while it holds the projections lease, so one process of
 * the deployment folds at a time and another takes over when it dies. While folding, caches hear of
 * changes from the fold itself; otherwise from the follower.
 */
export class LeasedRunner implements Runner {
  readonly applied$ = new Subject<AppliedBatch>();
  readonly ready: Promise<void>;
  private folding: FoldingRunner | null = null;
  private role: LeasedRole | null = null;
  private followed: Subscription | null = null;
  /** Read-your-writes waits parked on the fold, moved to the follower should the fold stop first. */
  private readonly handovers = new Set<() => void>();

  constructor(
    private readonly follower: FollowingRunner,
    private readonly fold: () => FoldingRunner,
    private readonly leases: Leases,
    private readonly events: LeasedRoleEvents = {},
  ) {
    this.ready = follower.ready;
  }

  get projections() {
    return this.follower.projections;
  }

  /** Whether this process folds now. */
  get holding(): boolean {
    return this.role?.holding ?? false;
  }

  checkpoints(): Record<string, number> {
    return (this.folding ?? this.follower).checkpoints();
  }

  failures(): Record<string, string> {
    return (this.folding ?? this.follower).failures();
  }

  quarantines(): QuarantineSummary {
    return (this.folding ?? this.follower).quarantines();
  }

  rebuilds(): Record<string, RebuildProgress> {
    return (this.folding ?? this.follower).rebuilds();
  }

  start(): void {
    if (this.role) return;
    this.follower.start();
    this.follow();
    this.role = runWhileLeased(
      this.leases,
      PROJECTIONS_LEASE,
      async () => {
        const runner = this.fold();
        await runner.ready;
        this.unfollow();
        const forwarded = runner.applied$.subscribe((batch) => this.applied$.next(batch));
        this.folding = runner;
        runner.start();
        return {
          stop: async () => {
            this.folding = null;
            runner.stop();
            await runner.close?.();
            forwarded.unsubscribe();
            this.follow();
            for (const handover of this.handovers) handover();
            this.handovers.clear();
          },
        };
      },
      this.events,
    );
  }

  stop(): void {
    this.follower.stop();
    this.unfollow();
    void this.role?.stop();
    this.role = null;
  }

  /** Stops folding and releases the lease (for a clean shutdown). */
  async close(): Promise<void> {
    const role = this.role;
    this.stop();
    await role?.stop();
  }

  catchUp(options?: Parameters<Runner['catchUp']>[0]): Promise<void> {
    return (this.folding ?? this.follower).catchUp(options);
  }

  waitFor(position: number, names: readonly string[] | null = null): Promise<void> {
    const folder = this.folding;
    if (!folder) return this.follower.waitFor(position, names);
    return new Promise((resolve, reject) => {
      const handover = () => void this.follower.waitFor(position, names).then(resolve, reject);
      this.handovers.add(handover);
      folder.waitFor(position, names).then(resolve, reject).finally(() => this.handovers.delete(handover));
    });
  }

  private follow(): void {
    // Subscribed only while not folding: the follower reads the log to tell what moved only when heard.
    this.followed ??= this.follower.applied$.subscribe((batch) => this.applied$.next(batch));
  }

  private unfollow(): void {
    this.followed?.unsubscribe();
    this.followed = null;
  }
}
