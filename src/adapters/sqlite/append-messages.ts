import type { AppendOptions, AppendResult, ExpectedRevision } from '../../store/event-log';
import type { AppendRow } from './append-transaction';
import type { Durability } from './open';

/** How the writer thread opens the log: as the log's own connection does. */
export interface AppendThreadSetup {
  path: string;
  durability?: Durability;
  autoCheckpointPages?: number;
  /** As SqliteEventLogOptions.chain. */
  chain?: boolean;
}

/**
 * An append crosses as one message per row (a row's text, up to a few MB, is copied in one turn),
 * then the one that runs the transaction over the rows received since the last.
 */
export type ToAppendThread =
  | { id: number; row: AppendRow }
  | { id: number; streamId: string; options: AppendOptions; recordedAt: string };

/** An error as it crosses threads: enough to rebuild a WrongExpectedRevisionError or a storage fault (its code). */
export interface AppendFailure {
  name: string;
  message: string;
  code?: string;
  expected?: ExpectedRevision;
  actual?: number | 'no_stream';
}

export type FromAppendThread = { id: number; ok: true; result: AppendResult } | { id: number; ok: false; error: AppendFailure };
