import type { BatchExportRow } from '../../../../projections/exports';
import type { ClickHouseConfig } from '../http-client';
import type { PageRange } from './page-ranges';
import type { RunWindow } from './run-query';

/** What the lines thread reads for one standard run on a ClickHouse server (plain data: it crosses postMessage). */
export interface LinesSetup {
  config: ClickHouseConfig;
  exp: BatchExportRow;
  window: RunWindow;
  ranges: PageRange[];
  pageRows: number;
  /** Rows per encoded chunk (the granularity at which files can be split by size). */
  chunkRows: number;
  /** Pages the thread may have sent and not seen acknowledged; bounds the memory of running ahead. */
  aheadPages: number;
}

/** Person properties (JSON text, null for no person) of the ids the thread asked for, in its order. */
export type ToLinesThread = { type: 'persons'; properties: (string | null)[] } | { type: 'ack' };

export type FromLinesThread =
  /** The person ids of a page the thread has not seen yet: answered before it encodes the page. */
  | { type: 'persons'; ids: string[] }
  /** A page of rows as JSONLines; chunk i is bytes [ends[i-1], ends[i]) and holds counts[i] rows. */
  | { type: 'page'; bytes: Uint8Array; ends: number[]; counts: number[] }
  | { type: 'done' }
  | { type: 'failed'; message: string };
