import type { AppliedEvent } from '../projection-runner';

export interface WorkerConfig {
  entry: string;
  dataDir: string;
  readModelDir?: string;
  durability?: 'normal' | 'strict';
}

export type ToWorker = { type: 'appended'; position: number } | { type: 'stop' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'progress'; checkpoints: Record<string, number>; failures: Record<string, string> }
  | { type: 'applied'; projection: string; events: AppliedEvent[] }
  | { type: 'stopped' };
