import type { AppliedEvent, RebuildProgress } from '../../store/runner';
import type { QuarantineSummary } from '../../store/runner';

/**
 * How the runtime starts its projection thread: the composition root names the entry module (which
 * opens the adapters) and the plain data it needs; the runtime knows neither.
 */
export interface WorkerStart {
  entry: URL;
  data: object;
}

export type ToWorker = { type: 'appended'; position: number } | { type: 'stop' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'progress'; checkpoints: Record<string, number>; failures: Record<string, string>; quarantines: QuarantineSummary; rebuilds: Record<string, RebuildProgress> }
  | { type: 'applied'; projection: string; events: AppliedEvent[]; unknown?: true }
  | { type: 'stopped' };
