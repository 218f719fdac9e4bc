import type { BatchExportRow, RunRow } from '../../../projections/exports';
import type { EncodedChunk, ExportRecord } from '../destinations';

/** One run's rows, read from one consistent snapshot of the analytics store. */
export interface RunRows {
  /** Rows in the run's interval (after include/exclude and the hogql WHERE). */
  total: number;
  /** The rows in batches; `check` runs between batches and throws to stop the run. */
  batches(batchSize: number, check: () => void): AsyncGenerator<ExportRecord[]>;
  /**
   * The same rows already encoded in `format`, when the source can do that faster (on other
   * threads); null when it cannot for this run. `check` runs between chunks, as for `batches`.
   */
  encoded?(format: 'JSONLines', batchSize: number, check: () => void): AsyncIterable<EncodedChunk> | null;
  close(): Promise<void>;
}

/**
 * The analytics port as the export worker sees it: open a run's rows (by ingestion time for
 * scheduled runs, by event time for backfills), ordered by that time then uuid. Adapters:
 * `src/adapters/sqlite/export-source/`, `src/adapters/postgres/export-source/` and
 * `src/adapters/clickhouse/export-source/` (a server or chDB); the composition root builds the one
 * its analytics store needs.
 */
export type ExportSource = (exp: BatchExportRow, run: RunRow) => Promise<RunRows>;
