import { randomUUID } from 'node:crypto';
import { batchExportRunStream } from '../../../streams';
import type { RunRow } from '../../../projections/exports';
import { fold } from '../../runtime/decider';
import { Loop, oneAtATime } from '../loop';
import { runDecider } from '../model/run-decider';
import { runAttempt, type AttemptDeps, type WorkerSettings } from './attempt';
import { isAbandonedByEarlierStart, retireInstance, type WorkerInstance } from './instance';

export type WorkerDeps = Omit<AttemptDeps, 'settings' | 'stopping'> & {
  settings?: Partial<WorkerSettings>;
  onError?: (err: Error) => void;
  /**
   * This start of the installation's worker (`npm start` passes one): its id is recorded in every
   * RunStarted, and on its first step it takes over the runs an earlier, dead start left Running.
   */
  instance?: WorkerInstance;
};

interface Orphan {
  run: RunRow;
  /** The dead attempt's worker id. */
  takeOver: string;
}

export const DEFAULT_WORKER_SETTINGS: Omit<WorkerSettings, 'workerId'> = {
  concurrency: 2,
  maxAttempts: 5,
  retryBaseMs: 10_000,
  retryMaxMs: 10 * 60_000,
  leaseMs: 15 * 60_000,
  // Rows per batch: small enough that rows die young (10,000 measured ~25% slower in GC).
  batchSize: 2_000,
  autoPauseWindow: 50,
  autoPauseFailures: 10,
};

/**
 * Takes claimable runs (queued, due for retry, or with an expired lease) in scheduling order and
 * runs up to `concurrency` of them at once, one per export at a time, so an export's runs (a
 * backfill's in particular) execute in order. Claims go through the run stream's revision, so
 * several workers, in one process or many, never run the same attempt twice.
 */
export class ExportWorker {
  private readonly deps: AttemptDeps;
  private readonly onError: (err: Error) => void;
  private readonly loop: Loop;
  private readonly inFlight = new Map<string, { exportId: string; done: Promise<void> }>();
  private stopped = false;
  private readonly instance: WorkerInstance | undefined;
  /** Runs left Running by an earlier start, found on the first step; null until then. */
  private orphans: Orphan[] | null = null;
  /**
   * Claims what it can now; started attempts keep running after it returns. One step at a time
   * (the loop's, `drain`'s): each checks the in-flight runs after its reads, so two steps must not
   * interleave their reads and launches.
   */
  readonly step: () => Promise<number> = oneAtATime(() => this.stepNow());

  constructor(deps: WorkerDeps) {
    this.instance = deps.instance;
    const workerId = deps.instance?.id ?? `worker-${randomUUID()}`;
    const settings: WorkerSettings = { workerId, ...DEFAULT_WORKER_SETTINGS, ...deps.settings };
    this.deps = { ...deps, settings, stopping: () => this.stopped };
    this.onError = deps.onError ?? (() => undefined);
    this.loop = new Loop(async () => {
      await this.step();
    }, this.onError);
  }

  get settings(): WorkerSettings {
    return this.deps.settings;
  }

  private async stepNow(): Promise<number> {
    const { runs, log } = this.deps;
    await this.deps.waitFor(await log.head());
    const now = this.deps.now().toISOString();
    let started = 0;
    this.orphans ??= await this.findOrphans();
    for (const orphan of [...this.orphans]) {
      if (this.inFlight.size >= this.deps.settings.concurrency) break;
      if (this.busyWith(orphan.run)) continue;
      this.orphans.splice(this.orphans.indexOf(orphan), 1);
      this.launch(orphan.run, orphan.takeOver);
      started++;
    }
    for (const run of await runs.claimable(now, 100)) {
      if (this.inFlight.size >= this.deps.settings.concurrency) break;
      if (this.busyWith(run)) continue;
      this.launch(run);
      started++;
    }
    return started;
  }

  /** Runs everything claimable at the current clock, until nothing is left (tests drive this). */
  async drain(): Promise<void> {
    for (;;) {
      const started = await this.step();
      if (started === 0 && this.inFlight.size === 0) return;
      await Promise.race([...this.inFlight.values()].map((f) => f.done));
    }
  }

  start(pollMs: number): void {
    this.stopped = false;
    this.loop.start(pollMs);
  }

  /** Stops claiming; running attempts stop at their next batch and are left due for an immediate retry. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
    if (this.instance) retireInstance(this.instance);
  }

  private busyWith(run: RunRow): boolean {
    return this.inFlight.has(run.id) || [...this.inFlight.values()].some((f) => f.exportId === run.batch_export_id);
  }

  /**
   * Running runs whose attempt an earlier start of this worker made and left behind (it was
   * killed): taken over now rather than when their lease ends. Each is re-read from its stream,
   * where RunStarted names the worker.
   */
  private async findOrphans(): Promise<Orphan[]> {
    const instance = this.instance;
    if (!instance) return [];
    const orphans: Orphan[] = [];
    for (const exp of await this.deps.exports.live()) {
      for (const run of await this.deps.runs.unfinished(exp.id)) {
        if (run.status !== 'Running') continue;
        const recorded = await this.deps.log.readStream(batchExportRunStream(run.id));
        const state = fold(runDecider.evolve, runDecider.initialState(), recorded as never);
        if (state.status === 'Running' && isAbandonedByEarlierStart(instance, state.workerId)) orphans.push({ run, takeOver: state.workerId! });
      }
    }
    return orphans;
  }

  private launch(run: RunRow, takeOver?: string): void {
    const done = runAttempt(this.deps, run, takeOver)
      .catch((err: unknown) => this.onError(err instanceof Error ? err : new Error(String(err))))
      .finally(() => {
        this.inFlight.delete(run.id);
        // A slot is free: look for more work now rather than at the next poll.
        if (!this.stopped) this.loop.wake();
      });
    this.inFlight.set(run.id, { exportId: run.batch_export_id, done });
  }
}
