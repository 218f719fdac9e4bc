import type { BatchExportRow } from '../../../../projections/exports';
import type { ClickHouseConfig } from '../http-client';
import type { PageRange } from './page-ranges';
import type { RunWindow } from './run-query';

/** What a lines thread reads of one standard run on a ClickHouse server (plain data: it crosses postMessage). */
export interface LinesSetup {
  config: ClickHouseConfig;
  exp: BatchExportRow;
  window: RunWindow;
  /** This thread's share of the run's ranges, in time order, and where each is in the run (`indexes`). */
  ranges: PageRange[];
  indexes: number[];
  pageRows: number;
  /** Rows per encoded chunk (the granularity at which files can be split by size). */
  chunkRows: number;
  /** Pages the thread may have sent and not seen acknowledged; bounds the memory of running ahead. */
  aheadPages: number;
}

/** Person properties (JSON text) of the ids the thread asked for, ids without a person left out. */
export type ToLinesThread = { type: 'persons'; found: Map<string, string> } | { type: 'ack' };

export type FromLinesThread =
  /** The person ids of a page the thread has not seen yet: answered before it encodes the page. */
  | { type: 'persons'; ids: readonly string[] }
  /**
   * A page of range `range`'s rows as JSONLines, in chunks: chunk i holds counts[i] rows. The
   * range's last page says so (`last`; it may hold no rows).
   */
  | { type: 'page'; range: number; chunks: Uint8Array[]; counts: number[]; last: boolean }
  | { type: 'failed'; message: string };
