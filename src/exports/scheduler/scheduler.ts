import { batchExportRunStream, type RunScheduledData } from '../../../streams';
import type { BatchExportQueries } from '../../../projections/exports';
import { handleCommand } from '../../runtime/command-handler';
import type { EventLog } from '../../store/event-log';
import { backfillRunId, scheduledRunId } from '../model/ids';
import { iso } from '../model/intervals';
import { runDecider } from '../model/run-decider';
import { Loop, oneAtATime } from '../loop';
import { dueBackfillIntervals, dueIntervals, type Interval } from './due';

export interface SchedulerDeps {
  log: EventLog;
  exports: BatchExportQueries;
  /** Resolves once the exports and runs read models have applied `position`. */
  waitFor: (position: number) => Promise<void>;
  now: () => Date;
  /** Runs scheduled per export (or backfill) per tick, so a long catch-up is spread over ticks. */
  batchLimit?: number;
  onError?: (err: Error) => void;
}

export interface TickResult {
  /** Runs this process appended. */
  scheduled: number;
  /** Due runs another process had already scheduled. */
  alreadyScheduled: number;
}

/**
 * Turns the clock into RunScheduled events. Every decision is recomputed from the read models
 * and `now`, and each run's first append expects `no_stream` on its own stream, whose id is
 * derived from (export, interval): when two processes tick at once, one append per interval
 * wins and the other sees the stream exist. `now` is recorded in each RunScheduled.
 */
export class ExportScheduler {
  private readonly loop: Loop;
  /** One tick at a time per scheduler: the loop's and any called directly take turns. */
  readonly tick: () => Promise<TickResult> = oneAtATime(() => this.tickNow());

  constructor(private readonly deps: SchedulerDeps) {
    this.loop = new Loop(() => this.tick().then(() => undefined), deps.onError);
  }

  private async tickNow(): Promise<TickResult> {
    const { exports, log } = this.deps;
    await this.deps.waitFor(await log.head());
    const now = this.deps.now();
    const limit = this.deps.batchLimit ?? 500;
    const result: TickResult = { scheduled: 0, alreadyScheduled: 0 };
    for (const exp of await exports.live()) {
      const due = dueIntervals(exp, await exports.pauses(exp.id), await exports.lastScheduledEnd(exp.id), now.getTime(), limit);
      for (const interval of due) {
        const runId = scheduledRunId(exp.id, iso(interval.end));
        await this.schedule(result, runId, exp.id, exp.project_id, interval, null, now);
      }
    }
    for (const backfill of await exports.pendingBackfills()) {
      for (const interval of dueBackfillIntervals(backfill, now.getTime(), limit)) {
        const runId = backfillRunId(backfill.batch_export_id, backfill.id, iso(interval.end));
        await this.schedule(result, runId, backfill.batch_export_id, backfill.project_id, interval, backfill.id, now);
      }
    }
    return result;
  }

  /** Ticks every `intervalMs` until stop(). */
  start(intervalMs: number): void {
    this.loop.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async schedule(
    result: TickResult,
    runId: string,
    batchExportId: string,
    projectId: number,
    interval: Interval,
    backfillId: string | null,
    now: Date,
  ): Promise<void> {
    const data: RunScheduledData = {
      runId,
      batchExportId,
      projectId,
      dataIntervalStart: iso(interval.start),
      dataIntervalEnd: iso(interval.end),
      backfillId,
      scheduledAt: now.toISOString(),
    };
    const handled = await handleCommand(this.deps.log, batchExportRunStream(runId), runDecider, { type: 'Schedule', data }, {
      actor: { type: 'scheduler' },
      projectId,
    });
    if (handled.result) result.scheduled++;
    else result.alreadyScheduled++;
  }
}
