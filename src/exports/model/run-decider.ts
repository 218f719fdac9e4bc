import { batchExportRunEvents, type BatchExportRunEvent, type RunScheduledData, type RunStatus } from '../../../streams';
import { validationError } from '../../errors';
import type { Decider } from '../../runtime/decider';

export interface RunState {
  exists: boolean;
  ref: { runId: string; batchExportId: string; projectId: number };
  status: RunStatus;
  /** Attempts ever started (numbers every RunStarted). */
  attempt: number;
  /** Attempts since the run was last (re)queued: what the retry limit counts. */
  tries: number;
  leaseUntil: string | null;
  retryAt: string | null;
  scheduled: RunScheduledData | null;
  /** Who started the current attempt (RunStarted's workerId). */
  workerId: string | null;
}

export type RunCommand =
  | { type: 'Schedule'; data: RunScheduledData }
  /** `takeOver`: the worker id of an attempt known to be dead, claimed before its lease ends. */
  | { type: 'Start'; workerId: string; now: string; leaseUntil: string; takeOver?: string }
  | { type: 'FailAttempt'; attempt: number; error: string; retryAt: string }
  | {
      type: 'Finish';
      attempt: number;
      status: 'Completed' | 'Failed';
      recordsCompleted: number;
      recordsTotalCount: number | null;
      bytesExported: number | null;
      error: string | null;
    }
  | { type: 'Cancel'; reason: string }
  | { type: 'Retry' };

const TERMINAL: readonly RunStatus[] = ['Completed', 'Failed', 'Cancelled', 'Terminated', 'TimedOut'];
const CANCELLABLE: readonly RunStatus[] = ['Starting', 'Running', 'FailedRetryable'];

const initialState = (): RunState => ({
  exists: false,
  ref: { runId: '', batchExportId: '', projectId: 0 },
  status: 'Starting',
  attempt: 0,
  tries: 0,
  leaseUntil: null,
  retryAt: null,
  scheduled: null,
  workerId: null,
});

/** Whether a worker may take the run now: queued, due for a retry, or abandoned by its worker. */
export function isClaimable(s: RunState, now: string): boolean {
  if (!s.exists) return false;
  if (s.status === 'Starting') return true;
  if (s.status === 'FailedRetryable') return s.retryAt !== null && s.retryAt <= now;
  if (s.status === 'Running') return s.leaseUntil !== null && s.leaseUntil <= now;
  return false;
}

/**
 * One run's lifecycle: Starting → Running → Completed | Failed, with FailedRetryable between
 * attempts, Cancelled from any live state, and Retry re-queueing a finished run. A worker's
 * outcome is accepted only for the attempt it started: if the run was cancelled or taken over
 * meanwhile, the outcome is dropped (decide returns nothing) and the worker learns it lost.
 */
export const runDecider: Decider<RunCommand, BatchExportRunEvent, RunState> = {
  events: batchExportRunEvents,
  initialState,
  evolve(s, e) {
    switch (e.type) {
      case 'BatchExportRunScheduled': {
        const { runId, batchExportId, projectId } = e.data;
        return { ...s, exists: true, ref: { runId, batchExportId, projectId }, status: 'Starting', scheduled: e.data };
      }
      case 'BatchExportRunStarted':
        return { ...s, status: 'Running', attempt: e.data.attempt, tries: s.tries + 1, leaseUntil: e.data.leaseUntil, retryAt: null, workerId: e.data.workerId };
      case 'BatchExportRunAttemptFailed':
        return { ...s, status: 'FailedRetryable', retryAt: e.data.retryAt, leaseUntil: null };
      case 'BatchExportRunFinished':
        return { ...s, status: e.data.status, leaseUntil: null, retryAt: null };
      case 'BatchExportRunCancelled':
        return { ...s, status: 'Cancelled', leaseUntil: null, retryAt: null };
      case 'BatchExportRunRetryRequested':
        return { ...s, status: 'Starting', tries: 0, leaseUntil: null, retryAt: null };
    }
  },
  decide(c, s) {
    if (c.type === 'Schedule') return s.exists ? [] : [{ type: 'BatchExportRunScheduled', data: c.data }];
    if (!s.exists) return [];
    const ref = s.ref;
    const own = (attempt: number) => s.status === 'Running' && s.attempt === attempt;
    switch (c.type) {
      case 'Start': {
        const takenOver = c.takeOver !== undefined && s.status === 'Running' && s.workerId === c.takeOver;
        if (!takenOver && !isClaimable(s, c.now)) return [];
        return [{ type: 'BatchExportRunStarted', data: { ...ref, attempt: s.attempt + 1, workerId: c.workerId, leaseUntil: c.leaseUntil } }];
      }
      case 'FailAttempt':
        if (!own(c.attempt)) return [];
        return [{ type: 'BatchExportRunAttemptFailed', data: { ...ref, attempt: c.attempt, error: c.error, retryAt: c.retryAt } }];
      case 'Finish': {
        if (!own(c.attempt)) return [];
        const { type: _t, attempt: _a, ...outcome } = c;
        return [{ type: 'BatchExportRunFinished', data: { ...ref, ...outcome } }];
      }
      case 'Cancel':
        if (!CANCELLABLE.includes(s.status)) throw validationError(`Cannot cancel a run that is in '${s.status}' status`);
        return [{ type: 'BatchExportRunCancelled', data: { ...ref, reason: c.reason } }];
      case 'Retry':
        if (!TERMINAL.includes(s.status)) throw validationError(`Cannot retry a run that is in '${s.status}' status`);
        return [{ type: 'BatchExportRunRetryRequested', data: ref }];
    }
  },
};
