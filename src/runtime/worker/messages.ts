import type { AppliedEvent } from '../projection-runner';
import type { QuarantineSummary } from '../quarantine';

export interface WorkerConfig {
  entry: string;
  dataDir: string;
  readModelDir?: string;
  durability?: 'normal' | 'strict';
  /** CPU niceness of the worker thread (0: unchanged). */
  nice?: number;
  /** When set, another thread checkpoints the read-model stores: commits here only past this many WAL pages. */
  backstopCheckpointPages?: number;
}

export type ToWorker = { type: 'appended'; position: number } | { type: 'stop' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'progress'; checkpoints: Record<string, number>; failures: Record<string, string>; quarantines: QuarantineSummary }
  | { type: 'applied'; projection: string; events: AppliedEvent[] }
  | { type: 'stopped' };
