import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../secrets';
import type { ExportPolicy } from '../policy';
import { batchExportRunStream, batchExportStream, INTERVAL_MS, type Actor } from '../../../streams';
import type { BatchExportQueries, BatchExportRow, BatchExportRunQueries, RunRow } from '../../../projections/exports';
import { notFound } from '../../errors';
import { appendAndWait, handleCommandAndWait } from '../../runtime/read-your-writes';
import type { EventLog } from '../../store/event-log';
import { exportDecider, type ExportChanges, type ExportCommand, type ExportState } from '../model/export-decider';
import { checkBackfillSize, checkUnpauseBackfillSize } from './backfill-size';
import { writeLogEntries } from '../model/log-entries';
import { runDecider, type RunCommand } from '../model/run-decider';
import { checkBackfill, type BackfillBounds } from './backfill-input';
import { checkDestination } from './destination-input';
import { checkBounds, type ExportCreate, type ExportPatch } from './export-input';

export interface BatchExportServiceDeps {
  /** Seals destination secrets before they are appended. */
  secrets: SecretBox;
  log: EventLog;
  exports: BatchExportQueries;
  runs: BatchExportRunQueries;
  /** Resolves once the exports read models have applied `position` (read-your-writes). */
  waitFor: (position: number) => Promise<void>;
  now: () => Date;
  /** Export root, network policy (destinations are checked against them) and the backfill cap. */
  policy: ExportPolicy;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Commands over batch exports and their runs. `projectIds` is what the caller may see (one
 * project at project scope, the organization's projects at organization scope): an export
 * outside it is "not found", never "forbidden", so ids of other teams do not leak.
 */
export class BatchExportService {
  constructor(private readonly deps: BatchExportServiceDeps) {}

  async get(projectIds: readonly number[], id: string): Promise<BatchExportRow> {
    const row = UUID.test(id) ? await this.deps.exports.byId(id.toLowerCase()) : undefined;
    if (!row || row.deleted || !projectIds.includes(row.project_id)) throw notFound();
    return row;
  }

  async list(projectIds: readonly number[], limit: number, offset: number) {
    return this.deps.exports.list(projectIds, limit, offset);
  }

  async create(projectId: number, input: ExportCreate, actor: Actor): Promise<BatchExportRow> {
    const { name, interval, paused, startAt, endAt, query, model } = input;
    const destination = await checkDestination(input.destination, this.deps.secrets, this.deps.policy);
    const id = randomUUID();
    const data = {
      id,
      projectId,
      name,
      model,
      destination,
      interval,
      paused,
      startAt,
      endAt,
      hogqlQuery: query.hogqlQuery,
      schema: query.schema,
      createdBy: actor.type === 'user' ? actor.id : null,
    };
    await this.exec(id, projectId, { type: 'Create', data }, actor);
    return (await this.deps.exports.byId(id))!;
  }

  async update(projectIds: readonly number[], id: string, patch: ExportPatch, actor: Actor): Promise<BatchExportRow> {
    const row = await this.get(projectIds, id);
    const { destination, query, paused, ...fields } = patch;
    const changes: ExportChanges = { ...fields };
    if (destination !== undefined) {
      const previous = { type: row.destination_type, config: row.destination_config };
      changes.destination = await checkDestination(destination, this.deps.secrets, this.deps.policy, previous);
    }
    checkBounds(changes.startAt === undefined ? row.start_at : changes.startAt, changes.endAt === undefined ? row.end_at : changes.endAt);
    if (query) {
      changes.hogqlQuery = query.hogqlQuery;
      changes.schema = query.schema;
    }
    return this.answer(row.id, await this.exec(row.id, row.project_id, { type: 'Update', changes, paused }, actor));
  }

  async pause(projectIds: readonly number[], id: string, actor: Actor): Promise<BatchExportRow> {
    const row = await this.get(projectIds, id);
    return this.answer(row.id, await this.exec(row.id, row.project_id, { type: 'Pause', automatic: false, reason: null }, actor));
  }

  /** With `backfill`, the intervals that ended while paused are scheduled after all (capped). */
  async unpause(projectIds: readonly number[], id: string, { backfill }: { backfill: boolean }, actor: Actor): Promise<BatchExportRow> {
    const row = await this.get(projectIds, id);
    if (row.paused) checkUnpauseBackfillSize(row, backfill, this.deps.now().getTime(), this.deps.policy.backfillMaxRuns);
    return this.answer(row.id, await this.exec(row.id, row.project_id, { type: 'Unpause', backfill }, actor));
  }

  async backfill(projectIds: readonly number[], id: string, bounds: BackfillBounds, actor: Actor): Promise<BatchExportRow> {
    const row = await this.get(projectIds, id);
    const now = this.deps.now();
    const range = checkBackfill(bounds, { now: now.getTime(), step: INTERVAL_MS[row.interval], destinationType: row.destination_type });
    checkBackfillSize(range, INTERVAL_MS[row.interval], this.deps.policy.backfillMaxRuns);
    const backfillId = randomUUID();
    await this.exec(row.id, row.project_id, { type: 'Backfill', backfillId, ...range }, actor);
    const entry = { runId: null, level: 'INFO' as const, timestamp: now.toISOString(), message: `Backfill ${backfillId} requested from ${range.startAt} to ${range.endAt}` };
    await appendAndWait(() => writeLogEntries(this.deps.log, { batchExportId: row.id, projectId: row.project_id }, [entry], actor), this.deps.waitFor);
    return (await this.deps.exports.byId(row.id))!;
  }

  async delete(projectIds: readonly number[], id: string, actor: Actor): Promise<void> {
    const row = await this.get(projectIds, id);
    await this.exec(row.id, row.project_id, { type: 'Delete' }, actor);
  }

  async run(projectIds: readonly number[], batchExportId: string, runId: string): Promise<RunRow> {
    const exportRow = await this.get(projectIds, batchExportId);
    const run = UUID.test(runId) ? await this.deps.runs.byId(runId.toLowerCase()) : undefined;
    if (!run || run.batch_export_id !== exportRow.id) throw notFound();
    return run;
  }

  /** A queued or waiting run is cancelled at once; a running one is abandoned by its worker. */
  async cancelRun(projectIds: readonly number[], batchExportId: string, runId: string, actor: Actor): Promise<RunRow> {
    const run = await this.run(projectIds, batchExportId, runId);
    await this.execRun(run, { type: 'Cancel', reason: 'Cancelled by user' }, actor);
    return (await this.deps.runs.byId(run.id))!;
  }

  /** Runs a finished run's interval again, under the same run id (the destination dedupes). */
  async retryRun(projectIds: readonly number[], batchExportId: string, runId: string, actor: Actor): Promise<RunRow> {
    const run = await this.run(projectIds, batchExportId, runId);
    await this.execRun(run, { type: 'Retry' }, actor);
    return (await this.deps.runs.byId(run.id))!;
  }

  /** Appends, then waits until the read models hold the append (or, with nothing appended, the log's head). */
  private async exec(id: string, projectId: number, command: ExportCommand, actor: Actor): Promise<ExportState> {
    const read = { waitFor: this.deps.waitFor, nothingAppended: 'wait_for_head' } as const;
    const { state } = await handleCommandAndWait(this.deps.log, batchExportStream(id), exportDecider, command, { actor, projectId }, read);
    return state;
  }

  /**
   * The row to answer with, its `paused` taken from the aggregate state this command produced:
   * when pauses and unpauses race, the read model may already show a later command's state,
   * and each caller must see its own action's outcome.
   */
  private async answer(id: string, state: ExportState): Promise<BatchExportRow> {
    const row = (await this.deps.exports.byId(id))!;
    return { ...row, paused: state.paused };
  }

  private async execRun(run: RunRow, command: RunCommand, actor: Actor): Promise<void> {
    await handleCommandAndWait(this.deps.log, batchExportRunStream(run.id), runDecider, command, { actor, projectId: run.project_id }, { waitFor: this.deps.waitFor });
  }
}
