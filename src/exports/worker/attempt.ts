import { batchExportRunStream, batchExportStream, type Actor } from '../../../streams';
import type { BatchExportQueries, BatchExportRow, BatchExportRunQueries, RunRow } from '../../../projections/exports';
import { handleCommand } from '../../runtime/command-handler';
import { handleCommandAndWait } from '../../runtime/read-your-writes';
import type { EventLog } from '../../store/event-log';
import { DestinationError, scrubSecrets } from '../destinations';
import { describeError } from '../destinations/network-errors';
import { HogQLError } from '../hogql';
import { exportDecider } from '../model/export-decider';
import { runDecider, type RunCommand } from '../model/run-decider';
import { executeRun, RunAbandonedError, type AbandonReason } from './execute-run';
import { RunLog } from './run-log';
import type { ExportSource } from './export-source';
import type { SecretBox } from '../secrets';
import type { DestinationPolicy } from '../policy';

export interface WorkerSettings {
  workerId: string;
  concurrency: number;
  /** Attempts per run before it fails for good (retryable errors only). */
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** How long a started run belongs to its worker before another may take it over. */
  leaseMs: number;
  batchSize: number;
  /** Auto-pause: `autoPauseFailures` failed runs among the latest `autoPauseWindow`. */
  autoPauseWindow: number;
  autoPauseFailures: number;
}

export interface AttemptDeps {
  log: EventLog;
  exports: BatchExportQueries;
  runs: BatchExportRunQueries;
  waitFor: (position: number) => Promise<void>;
  waitForIngestion: (position: number) => Promise<void>;
  /** The analytics port: opens a run's rows. */
  source: ExportSource;
  secrets: SecretBox;
  policy: DestinationPolicy;
  now: () => Date;
  settings: WorkerSettings;
  stopping: () => boolean;
}

const ACTOR: Actor = { type: 'worker' };

export const backoffMs = (s: WorkerSettings, tries: number) => Math.min(s.retryBaseMs * 2 ** Math.max(0, tries - 1), s.retryMaxMs);

/** Unknown errors (a locked file, a driver hiccup) are retried like transient ones; bad queries are not. */
const isRetryable = (err: unknown) => (err instanceof DestinationError ? err.retryable : !(err instanceof HogQLError));

/**
 * One attempt at one run: claim it (RunStarted at the revision read, so one worker wins), export,
 * then record the outcome for this attempt only. A retryable failure leaves the run
 * FailedRetryable with a retry time; the last allowed failure, or a non-retryable one, fails it
 * and may auto-pause the export. Log lines are appended with the outcome.
 */
export async function runAttempt(deps: AttemptDeps, candidate: RunRow, takeOver?: string): Promise<void> {
  const { settings } = deps;
  const now = deps.now();
  const exec = (command: RunCommand) =>
    handleCommand(deps.log, batchExportRunStream(candidate.id), runDecider, command, { actor: ACTOR, projectId: candidate.project_id });
  /** The same, then read-your-writes on the exports read models. */
  const execAndWait = (command: RunCommand) =>
    handleCommandAndWait(deps.log, batchExportRunStream(candidate.id), runDecider, command, { actor: ACTOR, projectId: candidate.project_id }, { waitFor: deps.waitFor });
  const started = await execAndWait({
    type: 'Start',
    workerId: settings.workerId,
    now: now.toISOString(),
    leaseUntil: new Date(now.getTime() + settings.leaseMs).toISOString(),
    ...(takeOver === undefined ? {} : { takeOver }),
  });
  if (!started.result) return;
  const { attempt, tries } = started.state;
  const exp = await deps.exports.byId(candidate.batch_export_id);
  if (!exp || exp.deleted) {
    await exec({ type: 'Cancel', reason: 'The batch export was deleted' });
    return;
  }
  const run = (await deps.runs.byId(candidate.id)) ?? candidate;
  // Stored secrets are sealed: messages are scrubbed of the opened values, which are what could leak.
  const destination = scrubbable(deps, exp);
  const runLog = new RunLog(deps.log, { batchExportId: exp.id, projectId: exp.project_id, runId: run.id }, destination, deps.now);
  const kind = run.backfill_id ? 'backfill' : 'scheduled';
  if (takeOver !== undefined) runLog.add('WARNING', `Attempt ${attempt - 1} was left running by an earlier start of this worker; taking the run over`);
  runLog.add('INFO', `Starting ${kind} export of ${run.data_interval_start} to ${run.data_interval_end} to ${exp.destination_type} (attempt ${attempt})`);

  let failed = false;
  try {
    await deps.waitForIngestion(await deps.log.head());
    const result = await executeRun({
      exp,
      run,
      source: deps.source,
      secrets: deps.secrets,
      policy: deps.policy,
      batchSize: settings.batchSize,
      log: (level, message) => runLog.add(level, message),
      abandoned: () => abandoned(deps, run.id, attempt),
    });
    const finished = await exec({ type: 'Finish', attempt, status: 'Completed', error: null, ...result });
    runLog.add('INFO', finished.result
      ? `Completed: exported ${result.recordsCompleted} of ${result.recordsTotalCount} records`
      : 'Exported, but the run was cancelled meanwhile; the outcome is discarded');
  } catch (err) {
    if (err instanceof RunAbandonedError && err.reason !== 'stopping') {
      runLog.add('INFO', err.message);
    } else {
      const message = scrubSecrets(err instanceof RunAbandonedError ? err.message : describeError(err), destination.type, destination.config);
      const retry = err instanceof RunAbandonedError || (isRetryable(err) && tries < settings.maxAttempts);
      if (retry) {
        const retryAt = new Date(deps.now().getTime() + (err instanceof RunAbandonedError ? 0 : backoffMs(settings, tries)));
        await exec({ type: 'FailAttempt', attempt, error: message, retryAt: retryAt.toISOString() });
        runLog.add('WARNING', `Attempt ${attempt} failed, retrying at ${retryAt.toISOString()}: ${message}`);
      } else {
        const finished = await execAndWait({ type: 'Finish', attempt, status: 'Failed', recordsCompleted: 0, recordsTotalCount: null, bytesExported: null, error: message });
        runLog.add('ERROR', `Run failed: ${message}`);
        failed = finished.result !== null;
      }
    }
  }
  const logged = await runLog.flush();
  if (failed) await autoPause(deps, exp);
  if (logged !== null) await deps.waitFor(logged);
}

/** The destination with its secrets opened, for scrubbing; sealed as stored if they cannot be opened (the run then fails on it). */
function scrubbable(deps: AttemptDeps, exp: BatchExportRow): { type: string; config: Record<string, unknown> } {
  try {
    return { type: exp.destination_type, config: deps.secrets.openConfig(exp.destination_type, exp.destination_config) };
  } catch {
    return { type: exp.destination_type, config: exp.destination_config };
  }
}

async function abandoned(deps: AttemptDeps, runId: string, attempt: number): Promise<AbandonReason | null> {
  if (deps.stopping()) return 'stopping';
  const row = await deps.runs.byId(runId);
  if (!row || row.status === 'Cancelled') return 'cancelled';
  return row.status !== 'Running' || row.attempt !== attempt ? 'superseded' : null;
}

async function autoPause(deps: AttemptDeps, exp: BatchExportRow): Promise<void> {
  const { autoPauseWindow: window, autoPauseFailures: threshold } = deps.settings;
  const failures = await deps.runs.failuresInLatest(exp.id, window);
  if (failures < threshold) return;
  const reason = `${failures} of the last ${window} runs failed`;
  const paused = await handleCommand(deps.log, batchExportStream(exp.id), exportDecider, { type: 'Pause', automatic: true, reason }, {
    actor: ACTOR,
    projectId: exp.project_id,
  });
  if (!paused.result) return;
  const destination = scrubbable(deps, exp);
  const runLog = new RunLog(deps.log, { batchExportId: exp.id, projectId: exp.project_id, runId: null }, destination, deps.now);
  runLog.add('WARNING', `Batch export paused automatically: ${reason}`);
  await runLog.flush();
}
