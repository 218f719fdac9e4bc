import type { Subject } from 'rxjs';
import type { ReadModelProjection } from '../../store/read-model-projection';
import { TableLockTimeout, type ReadModelStore } from '../../store/read-models';
import type { CatchUpOptions, RebuildProgress } from '../../store/runner';
import { projectionLock } from '../checkpoints';
import { nextVersionOf } from './next-version';
import { takeOver } from './take-over';

/** How long a take-over waits for readers of the tables it replaces before it tries again. */
const TAKE_OVER_LOCK_MS = 200;

/** The runner that builds the next version: a projection runner of its own on the same log and store. */
export interface BuildingRunner {
  readonly ready: Promise<void>;
  readonly progress$: Subject<void>;
  checkpoints(): Record<string, number>;
  failures(): Record<string, string>;
  start(): void;
  stop(): void;
  catchUp(options?: CatchUpOptions): Promise<void>;
  idle(): Promise<void>;
}

/** What a rebuild needs of the runner that serves the projection. */
export interface RebuildHost {
  /** A runner of its own for `next` (side by side off: it folds from the first event). */
  runnerFor(next: ReadModelProjection): BuildingRunner;
  /** The log's head now (a rebuild that reached it takes over). */
  head(): Promise<number>;
  /** Whether the serving runner follows the log: a rebuild takes over on its own only then. */
  following(): boolean;
  /** Runs `work` between two of the serving runner's batches. */
  inTurn(work: () => Promise<void>): Promise<void>;
  /** The rebuild moved on (its position is part of the serving runner's progress). */
  progressed(): void;
  /** The next version has taken the tables over (in the serving runner's turn): serve it now. */
  tookOver(rebuild: SideBySideRebuild): Promise<void>;
}

/**
 * A projection's next version, built side by side by a runner of its own while the version that
 * serves keeps its tables, until it takes their place at the head.
 */
export class SideBySideRebuild {
  private takingOver: Promise<void> | null = null;

  private constructor(
    readonly projection: ReadModelProjection,
    readonly next: ReadModelProjection,
    readonly store: ReadModelStore,
    private readonly runner: BuildingRunner,
    private readonly host: RebuildHost,
  ) {}

  static async begin(projection: ReadModelProjection, store: ReadModelStore, host: RebuildHost): Promise<SideBySideRebuild> {
    const next = nextVersionOf(projection);
    const runner = host.runnerFor(next);
    await runner.ready;
    return new SideBySideRebuild(projection, next, store, runner, host);
  }

  progress(): RebuildProgress {
    return { version: this.next.version, position: this.runner.checkpoints()[this.next.name] ?? 0 };
  }

  stop(): void {
    this.runner.stop();
  }

  /** Builds the next version up to `toPosition`, then takes over. */
  async finish(toPosition: number, onProgress?: CatchUpOptions['onProgress']): Promise<void> {
    await this.runner.catchUp({ toPosition, onProgress });
    await this.takeOver();
  }

  /** Builds the next version while following the log; once it has reached the head, it takes over. */
  follow(): void {
    this.runner.start();
    const check = async () => {
      if (this.takingOver) return;
      if (!this.host.following()) return;
      const built = this.progress().position;
      // Stryker disable next-line ArrowFunction: equivalent, an undefined head compares false as infinity does
      const head = await this.host.head().catch(() => Number.POSITIVE_INFINITY);
      // takeOver() answers the take-over already under way, if any.
      if (built >= head) void this.takeOver().catch(() => undefined);
    };
    this.runner.progress$.subscribe(() => {
      this.host.progressed();
      void check();
    });
    void check();
  }

  /**
   * The next version takes the served version's place (take-over.ts), between two of the serving
   * runner's batches; whatever the projection keeps in memory is told its rows are gone.
   */
  takeOver(): Promise<void> {
    this.takingOver ??= (async () => {
      this.runner.stop();
      await this.runner.idle();
      const failure = this.runner.failures()[this.next.name];
      if (failure) throw new Error(`the rebuild of ${this.projection.name} stopped: ${failure}`);
      await this.host.inTurn(async () => {
        const { replaced } = await this.takeOverPolitely();
        // One table a transaction: a reader still on two of them cannot deadlock with the drop.
        for (const table of replaced) await this.store.transaction((tx) => tx.dropTables([table]));
        this.projection.rolledBack?.();
        await this.host.tookOver(this);
      });
    })();
    return this.takingOver;
  }

  /**
   * The take-over's transaction, tried again while readers hold the tables for longer than
   * TAKE_OVER_LOCK_MS: readers never queue long behind it, nor deadlock with it.
   */
  private async takeOverPolitely(): Promise<{ position: number; replaced: readonly string[] }> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.store.transaction((tx) => takeOver(tx, this.projection, this.next), {
          lock: [projectionLock(this.projection), projectionLock(this.next)],
          tableLockTimeoutMs: TAKE_OVER_LOCK_MS,
        });
      } catch (err) {
        if (!(err instanceof TableLockTimeout) || attempt >= 50) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * TAKE_OVER_LOCK_MS));
      }
    }
  }
}
