import type { Keyset } from './run-query';

/** Rows of a run per span of its time column: `span` is the time in ms divided by the span's length. */
export interface SpanCount {
  span: number;
  rows: number;
}

/**
 * A stretch of the run's time column, [from, to) in ms (null: unbounded on that side), and about
 * how many rows it holds.
 */
export interface PageRange {
  from: number | null;
  to: number | null;
  rows: number;
}

/**
 * Consecutive spans gathered into ranges of at least `pageRows` rows each (the last may hold fewer),
 * in time order. A page statement bounded by its range reads that range's rows only: 18.16 reads
 * every row a key range holds before it sorts, so an unbounded keyset page would read the whole
 * rest of the window, and a run would read it over and over. The counts need not be exact (a copy
 * not merged yet counts twice): they only size the ranges; the pages' own conditions decide. The
 * ranges adjoin and the first and last are open-ended, so together they cover every time whatever
 * the counts said: a row can only be missed by the window's own condition.
 */
export function pageRanges(spans: readonly SpanCount[], spanMs: number, pageRows: number): PageRange[] {
  const ranges: PageRange[] = [];
  let rows = 0;
  for (const span of spans) {
    rows += span.rows;
    if (rows < pageRows) continue;
    ranges.push({ from: ranges.length === 0 ? null : ranges[ranges.length - 1].to, to: (span.span + 1) * spanMs, rows });
    rows = 0;
  }
  const last = ranges.pop();
  // The rows after the last full range join it: a range of a few rows would cost a statement of its own.
  ranges.push({ from: last?.from ?? null, to: null, rows: (last?.rows ?? 0) + rows });
  return ranges;
}

/**
 * Every row of the ranges in keyset order, a page of up to `pageRows` rows per statement: each
 * range is read in keyset pages until one comes back short. The next page is asked for as soon as
 * a page arrives, so the engine reads it while the caller handles this one.
 */
export async function* rangedPages<T>(
  ranges: readonly PageRange[],
  pageRows: number,
  read: (range: PageRange, after: Keyset | null) => Promise<T[]>,
  keysetOf: (row: T) => Keyset,
): AsyncGenerator<T[]> {
  const next = (index: number, after: Keyset | null) => {
    const rows = read(ranges[index], after);
    // A caller that stops early never awaits the page asked for ahead: its failure is not news.
    rows.catch(() => undefined);
    return { index, rows };
  };
  let pending = ranges.length > 0 ? next(0, null) : null;
  while (pending) {
    const rows = await pending.rows;
    // A full page may have more of its range after it; a short one ends the range.
    if (rows.length === pageRows) pending = next(pending.index, keysetOf(rows[rows.length - 1]));
    else pending = pending.index + 1 < ranges.length ? next(pending.index + 1, null) : null;
    if (rows.length > 0) yield rows;
  }
}

/** Spans in a window, at most: a long backfill's are coarser, so its spans statement stays small. */
const MAX_SPANS = 10_000;

/** The span length for a window of [start, end) ms: a second, or longer for windows past MAX_SPANS seconds. */
export const spanMsFor = (start: number, end: number): number => Math.max(1000, Math.ceil((end - start) / MAX_SPANS));
