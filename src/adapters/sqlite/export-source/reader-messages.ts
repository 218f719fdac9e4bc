/** What a reader thread reads for one run: the run's paged query over one read-model file. */
export interface ReaderSetup {
  path: string;
  /** The run's page statement with LINE_COLUMNS. */
  pageSql: string;
  pageRows: number;
  /** Rows per encoded chunk (the granularity at which files can be split by size). */
  chunkRows: number;
  /** Pages a reader may have sent and not seen acknowledged; bounds the memory of running ahead. */
  window: number;
}

/** A time slice of the run: `params` are the page parameters with the slice's end. */
export interface SliceOrder {
  type: 'slice';
  index: number;
  params: (string | number)[];
  start: string;
}

/** Readers outlive runs (see ReaderPool): a run starts with its setup and ends with `endRun`. */
export type ToReader = { type: 'run'; setup: ReaderSetup } | SliceOrder | { type: 'ack' } | { type: 'endRun' };

export type FromReader =
  /** A page of rows as JSONLines; chunk i is bytes [ends[i-1], ends[i]) and holds counts[i] rows. */
  | { type: 'page'; slice: number; bytes: Uint8Array; ends: number[]; counts: number[] }
  | { type: 'sliceDone'; slice: number }
  | { type: 'failed'; message: string };
