import type { Worker } from 'node:worker_threads';
import { Subject } from 'rxjs';
import type { EventLog } from '../../store/event-log';
import type { AppliedBatch, CatchUpOptions, ProjectionInfo, RebuildProgress, Runner } from '../../store/runner';
import type { QuarantineSummary } from '../../store/runner';
import type { FromWorker, ToWorker, WorkerStart } from './messages';
import { startTsWorker } from '../../threads';

interface Waiter {
  position: number;
  names: readonly string[] | null;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * The main thread's view of projections running in a worker thread: checkpoints arrive as messages,
 * read-your-writes waits on them, caches hear about applied batches through `applied$`.
 */
export class RemoteProjectionRunner implements Runner {
  readonly applied$ = new Subject<AppliedBatch>();
  readonly ready: Promise<void>;
  private readonly worker: Worker;
  private current: Record<string, number> = {};
  private failed: Record<string, string> = {};
  private quarantined: QuarantineSummary = { count: 0, latest: [] };
  private building: Record<string, RebuildProgress> = {};
  private readonly waiters = new Set<Waiter>();
  private stopped: Promise<void> | null = null;

  constructor(
    readonly projections: readonly ProjectionInfo[],
    private readonly log: EventLog,
    start: WorkerStart,
  ) {
    this.worker = startTsWorker(start.entry, start.data);
    this.current = Object.fromEntries(projections.map((p) => [p.name, 0]));
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (m: FromWorker) => {
        if (m.type === 'ready') resolve();
        else this.onMessage(m);
      });
      this.worker.once('error', (err) => {
        reject(err);
        this.fail(`projection worker crashed: ${err.message}`);
      });
      this.worker.once('exit', (code) => {
        if (!this.stopped) this.fail(`projection worker exited with code ${code}`);
      });
    });
  }

  /** The main thread appended: tell the worker at once instead of waiting for its poll. */
  appended(position: number) {
    this.post({ type: 'appended', position });
  }

  checkpoints() {
    return { ...this.current };
  }

  failures() {
    return { ...this.failed };
  }

  quarantines() {
    return this.quarantined;
  }

  rebuilds() {
    return { ...this.building };
  }

  start() {}

  stop() {
    void this.close();
  }

  close(): Promise<void> {
    this.stopped ??= new Promise((resolve) => {
      this.worker.once('exit', () => resolve());
      this.post({ type: 'stop' });
      setTimeout(() => void this.worker.terminate(), 5000).unref();
    });
    return this.stopped;
  }

  /** The worker follows the log from its start; this waits for it (rebuilds included unless 'background'). */
  async catchUp(options: CatchUpOptions = {}) {
    await this.ready;
    const names = options.rebuilds === 'background' ? Object.keys(this.current).filter((name) => !(name in this.building)) : null;
    await this.waitFor(options.toPosition ?? (await this.log.head()), names);
  }

  waitFor(position: number, names: readonly string[] | null = null): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter = { position, names, resolve, reject };
      if (!this.settle(waiter)) this.waiters.add(waiter);
    });
  }

  private post(m: ToWorker) {
    if (!this.stopped) this.worker.postMessage(m);
  }

  private onMessage(m: FromWorker) {
    if (m.type === 'progress') {
      this.current = m.checkpoints;
      this.failed = m.failures;
      this.quarantined = m.quarantines;
      this.building = m.rebuilds;
      for (const w of this.waiters) if (this.settle(w)) this.waiters.delete(w);
    } else if (m.type === 'applied') {
      this.applied$.next(m.unknown ? { projection: m.projection, events: [], unknown: true } : { projection: m.projection, events: m.events });
    }
  }

  private settle(w: Waiter): boolean {
    const names = w.names ?? Object.keys(this.current);
    const broken = names.find((n) => this.failed[n]);
    if (broken) {
      w.reject(new Error(`projection ${broken} has stopped: ${this.failed[broken]}`));
      return true;
    }
    if (names.every((n) => (this.current[n] ?? 0) >= w.position)) {
      w.resolve();
      return true;
    }
    return false;
  }

  private fail(reason: string) {
    for (const name of Object.keys(this.current)) this.failed[name] ??= reason;
    for (const w of this.waiters) this.settle(w);
    this.waiters.clear();
  }
}
