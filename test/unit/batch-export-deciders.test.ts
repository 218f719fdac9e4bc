import { describe, it } from 'vitest';
import type { BatchExportEvent, BatchExportRunEvent, RunScheduledData } from '../../streams';
import { exportDecider } from '../../src/exports/model/export-decider';
import { runDecider } from '../../src/exports/model/run-decider';
import { spec } from '../support/decider-spec';

const ref = { runId: '00000000-0000-4000-8000-000000000001', batchExportId: '00000000-0000-4000-8000-000000000002', projectId: 1 };
const scheduled: RunScheduledData = { ...ref, dataIntervalStart: '2024-01-01T10:00:00.000Z', dataIntervalEnd: '2024-01-01T11:00:00.000Z', backfillId: null, scheduledAt: '2024-01-01T11:00:01.000Z' };
const S: BatchExportRunEvent = { type: 'BatchExportRunScheduled', data: scheduled };
const started = (attempt: number, leaseUntil = '2024-01-01T12:00:00.000Z'): BatchExportRunEvent => ({ type: 'BatchExportRunStarted', data: { ...ref, attempt, workerId: 'w', leaseUntil } });
const start = (now: string) => ({ type: 'Start' as const, workerId: 'w2', now, leaseUntil: '2024-01-01T13:00:00.000Z' });
const finish = (attempt: number) => ({ type: 'Finish' as const, attempt, status: 'Completed' as const, recordsCompleted: 5, recordsTotalCount: 5, bytesExported: 10, error: null });

describe('run decider', () => {
  const run = spec(runDecider);
  it('schedules once per stream', () => {
    run.given([]).when({ type: 'Schedule', data: scheduled }).then([S]);
    run.given([S]).when({ type: 'Schedule', data: scheduled }).thenNothing();
  });
  it('lets one worker claim a queued run, and another only once the lease has passed', () => {
    run.given([S]).when(start('2024-01-01T11:00:02.000Z')).then([{ type: 'BatchExportRunStarted', data: { ...ref, attempt: 1, workerId: 'w2', leaseUntil: '2024-01-01T13:00:00.000Z' } }]);
    run.given([S, started(1)]).when(start('2024-01-01T11:59:59.000Z')).thenNothing();
    run.given([S, started(1)]).when(start('2024-01-01T12:00:00.000Z')).then([{ type: 'BatchExportRunStarted', data: { ...ref, attempt: 2, workerId: 'w2', leaseUntil: '2024-01-01T13:00:00.000Z' } }]);
  });
  it('lets a restarted worker take over, before the lease ends, only the attempt of the dead worker it names', () => {
    const early = '2024-01-01T11:00:05.000Z';
    const takeOver = (workerId: string) => ({ ...start(early), takeOver: workerId });
    run.given([S, started(1)]).when(takeOver('w')).then([{ type: 'BatchExportRunStarted', data: { ...ref, attempt: 2, workerId: 'w2', leaseUntil: '2024-01-01T13:00:00.000Z' } }]);
    run.given([S, started(1)]).when(takeOver('someone-else')).thenNothing();
    const finished: BatchExportRunEvent = { type: 'BatchExportRunFinished', data: { ...ref, status: 'Completed', recordsCompleted: 1, recordsTotalCount: 1, bytesExported: null, error: null } };
    run.given([S, started(1), finished]).when(takeOver('w')).thenNothing();
  });
  it('retries after retryAt only, and accepts outcomes of the current attempt only', () => {
    const failed: BatchExportRunEvent = { type: 'BatchExportRunAttemptFailed', data: { ...ref, attempt: 1, error: 'x', retryAt: '2024-01-01T11:10:00.000Z' } };
    run.given([S, started(1), failed]).when(start('2024-01-01T11:09:00.000Z')).thenNothing();
    run.given([S, started(1), failed, started(2)]).when(finish(1)).thenNothing();
    run.given([S, started(1), failed, started(2)]).when(finish(2)).then([{ type: 'BatchExportRunFinished', data: { ...ref, status: 'Completed', recordsCompleted: 5, recordsTotalCount: 5, bytesExported: 10, error: null } }]);
  });
  it('cancels live runs only, drops a cancelled run’s outcome, and retries finished runs', () => {
    const cancelled: BatchExportRunEvent = { type: 'BatchExportRunCancelled', data: { ...ref, reason: 'r' } };
    run.given([S, started(1)]).when({ type: 'Cancel', reason: 'r' }).then([cancelled]);
    run.given([S, started(1), cancelled]).when(finish(1)).thenNothing();
    run.given([S, started(1), cancelled]).when({ type: 'Cancel', reason: 'r' }).thenThrows('validation', "Cannot cancel a run that is in 'Cancelled' status");
    run.given([S]).when({ type: 'Retry' }).thenThrows('validation', /Starting/);
    run.given([S, started(1), cancelled]).when({ type: 'Retry' }).then([{ type: 'BatchExportRunRetryRequested', data: ref }]);
  });
});

describe('export decider', () => {
  const exp = spec(exportDecider);
  const id = ref.batchExportId;
  const created: BatchExportEvent = {
    type: 'BatchExportCreated',
    data: { id, projectId: 1, name: 'n', model: 'events', destination: { type: 'NoOp', config: {} }, interval: 'hour', paused: false, startAt: null, endAt: null, hogqlQuery: null, schema: null, createdBy: null },
  };
  it('records only what changed, and pause/unpause only when they change the state', () => {
    exp.given([created]).when({ type: 'Update', changes: { name: 'n', interval: 'day' } }).then([{ type: 'BatchExportUpdated', data: { id, projectId: 1, interval: 'day' } }]);
    exp.given([created]).when({ type: 'Update', changes: {}, paused: true }).then([{ type: 'BatchExportPaused', data: { id, projectId: 1, automatic: false, reason: null } }]);
    exp.given([created]).when({ type: 'Unpause', backfill: true }).thenNothing();
    exp.given([created, { type: 'BatchExportPaused', data: { id, projectId: 1, automatic: true, reason: 'x' } }]).when({ type: 'Pause', automatic: true, reason: 'y' }).thenNothing();
  });
  it('refuses everything but create on a deleted export', () => {
    exp.given([created, { type: 'BatchExportDeleted', data: { id, projectId: 1 } }]).when({ type: 'Pause', automatic: false, reason: null }).thenThrows('not_found');
    exp.given([]).when({ type: 'Delete' }).thenThrows('not_found');
  });
});
