import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { EncodedChunk } from '../../../exports/destinations';
import type { FromReader, ReaderSetup, ToReader } from './reader-messages';
import { readerPool } from './reader-pool';
import { pageParamsUntil, type PagedQuery } from './source-query';

export interface ParallelOptions {
  path: string;
  query: PagedQuery;
  /** The run's interval end (the start is the query's). */
  end: string;
  pageRows: number;
  /** The run's row count: sizes the slices. */
  rows: number;
  threads?: number;
  /** Default: enough that a slice is about SLICE_PAGES pages. */
  slices?: number;
  check: () => void;
}

const CHUNK_ROWS = 200;
const WINDOW = 6;
/**
 * Chunks are handed on slice by slice, so a reader working ahead of the current slice stops after
 * WINDOW pages. A slice no longer than that lets it finish while the slice before is written; with
 * slices of ~30 pages the second reader idled most of the time (2 readers were 1.1x one reader;
 * with ~4-page slices, 1.4x).
 */
const SLICE_PAGES = 4;
const MAX_SLICES = 4096;

/** Slices for `rows` rows spread over the interval: ~SLICE_PAGES pages each when spread evenly. */
export const sliceCount = (rows: number, pageRows: number) => Math.min(MAX_SLICES, Math.max(1, Math.ceil(rows / (pageRows * SLICE_PAGES))));

/** `n` consecutive time ranges covering [start, end), the outer bounds kept as given. */
export function timeSlices(start: string, end: string, n: number): [string, string][] {
  const from = Date.parse(start);
  const step = (Date.parse(end) - from) / n;
  const bounds = [start, ...Array.from({ length: n - 1 }, (_, i) => new Date(from + Math.round(step * (i + 1))).toISOString()), end];
  return bounds.slice(0, -1).map((b, i) => [b, bounds[i + 1]] as [string, string]).filter(([a, b]) => a < b);
}

interface SliceState {
  pages: { reader: Worker; bytes: Uint8Array; ends: number[]; counts: number[] }[];
  done: boolean;
}

/**
 * The run's rows as JSONLines chunks, in the run's order, read and encoded by reader threads.
 * The interval is cut into time slices (a few pages each) that idle readers take in order;
 * chunks are handed on slice by slice, and a reader running ahead stops after a few unacknowledged pages, so memory
 * stays bounded whatever the slices hold. Each reader reads on its own connection: rows are in
 * the interval, but not all from the snapshot the run's count came from.
 */
export async function* encodedInParallel(o: ParallelOptions): AsyncGenerator<EncodedChunk> {
  const slices = timeSlices(o.query.start, o.end, o.slices ?? sliceCount(o.rows, o.pageRows));
  const threads = Math.max(1, Math.min(o.threads ?? availableParallelism(), slices.length));
  const setup: ReaderSetup = { path: o.path, pageSql: o.query.linesSql, pageRows: o.pageRows, chunkRows: CHUNK_ROWS, window: WINDOW };
  const state = new Map<number, SliceState>();
  let failure: Error | null = null;
  let nextSlice = 0;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const post = (reader: Worker, m: ToReader) => reader.postMessage(m);
  const assign = (reader: Worker) => {
    if (nextSlice >= slices.length) return;
    const index = nextSlice++;
    state.set(index, { pages: [], done: false });
    const [start, end] = slices[index];
    post(reader, { type: 'slice', index, start, params: pageParamsUntil(o.query, end) });
  };
  const readers = readerPool.acquire(threads);
  for (const reader of readers) {
    reader.on('message', (m: FromReader) => {
      if (m.type === 'page') state.get(m.slice)?.pages.push({ reader, bytes: m.bytes, ends: m.ends, counts: m.counts });
      else if (m.type === 'sliceDone') {
        state.get(m.slice)!.done = true;
        assign(reader);
      } else failure ??= new Error(`export reader failed: ${m.message}`);
      notify();
    });
    reader.on('error', (err: Error & { code?: string }) => {
      // Errors crossing the thread boundary may arrive without their message.
      failure ??= new Error(`export reader failed: ${err.message || err.code || String(err)}`);
      notify();
    });
    reader.on('exit', (code) => {
      failure ??= new Error(`export reader exited with code ${code}`);
      notify();
    });
    post(reader, { type: 'run', setup });
    assign(reader);
  }

  let finished = false;
  try {
    for (let current = 0; current < slices.length; ) {
      const slice = state.get(current);
      const page = slice?.pages.shift();
      if (page) {
        for (let i = 0; i < page.ends.length; i++) {
          yield { bytes: page.bytes.subarray(i === 0 ? 0 : page.ends[i - 1], page.ends[i]), records: page.counts[i] };
        }
        post(page.reader, { type: 'ack' });
        o.check();
      } else if (slice?.done) {
        state.delete(current++);
      } else {
        if (failure) throw failure;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    }
    finished = failure === null;
  } finally {
    // Only readers that finished every slice go back to the pool; others may still be reading.
    if (finished) {
      for (const reader of readers) post(reader, { type: 'endRun' });
      readerPool.release(readers);
    } else await readerPool.discard(readers);
  }
}
