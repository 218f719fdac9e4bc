/** The last row of a page: (time in ms, uuid), after which the next page starts. */
export type Keyset = readonly [number, string];

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
 * Consecutive spans gathered into ranges of fewer than `pageRows` rows each (a span holding more has
 * a range of its own), in time order. A page statement bounded by its range reads that range's rows
 * only: 18.16 reads every row a key range holds before it sorts, so an unbounded keyset page would
 * read the whole rest of the window, and a run would read it over and over. A range is then one
 * statement, and ranges can be read at once. The counts need not be exact (a copy not merged yet
 * counts twice): they only size the ranges; the pages' own conditions decide. The ranges adjoin and
 * the first and last are open-ended, so together they cover every time whatever the counts said: a
 * row can only be missed by the window's own condition.
 */
export function pageRanges(spans: readonly SpanCount[], spanMs: number, pageRows: number): PageRange[] {
  const ranges: PageRange[] = [];
  let open: PageRange = { from: null, to: null, rows: 0 };
  for (const span of spans) {
    if (open.rows > 0 && open.rows + span.rows >= pageRows) {
      open.to = span.span * spanMs;
      ranges.push(open);
      open = { from: open.to, to: null, rows: 0 };
    }
    open.rows += span.rows;
  }
  ranges.push(open);
  return ranges;
}

/** Ranges read ahead of the one being handed on. */
const RANGES_AHEAD = 2;

/**
 * Every row of the ranges in keyset order, a page of up to `pageRows` rows per statement: each
 * range is read in keyset pages until one comes back short. The ranges after the current one are
 * read meanwhile (`ahead` of them), and a range's next page is asked for as soon as a full one
 * arrives, so the engine reads while the caller handles a page.
 */
export async function* rangedPages<T>(...args: Parameters<typeof pagesByRange<T>>): AsyncGenerator<T[]> {
  for await (const page of pagesByRange(...args)) if (page.rows.length > 0) yield page.rows;
}

/** A page of rangedPages with its range; the range's last page says so (and may be empty). */
export interface RangePage<T> {
  range: PageRange;
  rows: T[];
  last: boolean;
}

/** rangedPages' pages with their ranges, each range ending with its last page (empty for a range without rows). */
export async function* pagesByRange<T>(
  ranges: readonly PageRange[],
  pageRows: number,
  read: (range: PageRange, after: Keyset | null) => Promise<T[]>,
  keysetOf: (row: T) => Keyset,
  ahead = RANGES_AHEAD,
): AsyncGenerator<RangePage<T>> {
  const ask = (range: PageRange, after: Keyset | null) => {
    const rows = read(range, after);
    // A caller that stops early never awaits what was asked for ahead: its failure is not news.
    rows.catch(() => undefined);
    return rows;
  };
  const started: { range: PageRange; first: Promise<T[]> }[] = [];
  let next = 0;
  const startMore = () => {
    for (; next < ranges.length && started.length < ahead; next++) started.push({ range: ranges[next], first: ask(ranges[next], null) });
  };
  startMore();
  for (let current = started.shift(); current; current = started.shift()) {
    startMore();
    let page = await current.first;
    for (;;) {
      // A full page may have more of its range after it; a short one ends the range.
      const more = page.length === pageRows ? ask(current.range, keysetOf(page[page.length - 1])) : null;
      yield { range: current.range, rows: page, last: more === null };
      if (!more) break;
      page = await more;
    }
  }
}

/** Spans in a window, at most: a long backfill's are coarser, so its spans statement stays small. */
const MAX_SPANS = 10_000;

/** The span length for a window of [start, end) ms: a second, or longer for windows past MAX_SPANS seconds. */
export const spanMsFor = (start: number, end: number): number => Math.max(1000, Math.ceil((end - start) / MAX_SPANS));
