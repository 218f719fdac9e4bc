import { describe, expect, it } from 'vitest';
import { pageRanges, pagesByRange, rangedPages, spanMsFor, type Keyset, type PageRange } from '../../../../src/adapters/clickhouse/export-source/page-ranges';

type Row = { t: number; uuid: string };

/** Rows as a store would answer a range page: in (t, uuid) order, after the keyset, `limit` at most. */
function pageOf(rows: readonly Row[], range: PageRange, after: Keyset | null, limit: number): Row[] {
  return rows
    .filter((r) => (range.from === null || r.t >= range.from) && (range.to === null || r.t < range.to))
    .filter((r) => after === null || r.t > after[0] || (r.t === after[0] && r.uuid > after[1]))
    .sort((a, b) => a.t - b.t || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0))
    .slice(0, limit);
}

async function readAll(rows: readonly Row[], ranges: readonly PageRange[], pageRows: number) {
  const statements: { range: PageRange; after: Keyset | null }[] = [];
  const pages: Row[][] = [];
  const read = async (range: PageRange, after: Keyset | null) => {
    statements.push({ range, after });
    return pageOf(rows, range, after, pageRows);
  };
  for await (const page of rangedPages(ranges, pageRows, read, (r) => [r.t, r.uuid])) pages.push(page);
  return { pages, statements };
}

describe('export page ranges', () => {
  it('gathers spans into adjoining ranges of less than a page, a larger span alone, open at both ends', () => {
    const spans = [
      { span: 10, rows: 2 },
      { span: 11, rows: 1 },
      { span: 15, rows: 2 },
      { span: 16, rows: 9 },
      { span: 20, rows: 1 },
      { span: 21, rows: 1 },
    ];
    expect(pageRanges(spans, 1000, 4)).toEqual([
      { from: null, to: 15_000, rows: 3 },
      { from: 15_000, to: 16_000, rows: 2 },
      { from: 16_000, to: 20_000, rows: 9 },
      { from: 20_000, to: null, rows: 2 },
    ]);
    expect(pageRanges(spans, 1000, 100)).toEqual([{ from: null, to: null, rows: 16 }]);
    expect(pageRanges([], 1000, 100)).toEqual([{ from: null, to: null, rows: 0 }]);
    expect(pageRanges([{ span: -2, rows: 7 }, { span: 3, rows: 7 }], 1000, 5)).toEqual([
      { from: null, to: 3000, rows: 7 },
      { from: 3000, to: null, rows: 7 },
    ]);
  });

  it('sizes spans by the window: a second, coarser past 10,000 seconds', () => {
    expect(spanMsFor(0, 3_600_000)).toBe(1000);
    expect(spanMsFor(0, 10_000_000)).toBe(1000);
    expect(spanMsFor(0, 365 * 86_400_000)).toBe(3_153_600);
    const from = Date.parse('2024-01-01T00:00:00Z');
    expect(spanMsFor(from, from + 3_600_000)).toBe(1000);
    expect(spanMsFor(from, from + 365 * 86_400_000)).toBe(3_153_600);
  });

  it('reads every row once in keyset order, however the counts were off', async () => {
    // Runs of equal times across span and page bounds, uuids out of arrival order.
    const rows: Row[] = [];
    for (let i = 0; i < 60; i++) rows.push({ t: 1000 * Math.floor(i / 7) + (i % 3), uuid: `u${(i * 37) % 61}`.padStart(4, '0') });
    const expected = pageOf(rows, { from: null, to: null, rows: 0 }, null, 1e9);
    const counted = new Map<number, number>();
    for (const r of rows) counted.set(Math.floor(r.t / 1000), (counted.get(Math.floor(r.t / 1000)) ?? 0) + 1);
    const exact = [...counted].sort((a, b) => a[0] - b[0]).map(([span, n]) => ({ span, rows: n }));
    const wrong = [{ span: 2, rows: 40 }, { span: 5, rows: 1 }];
    for (const spans of [exact, wrong, []]) {
      for (const pageRows of [1, 4, 7, 100]) {
        const ranges = pageRanges(spans, 1000, pageRows);
        const { pages } = await readAll(rows, ranges, pageRows);
        expect(pages.flat()).toEqual(expected);
        expect(pages.every((p) => p.length > 0 && p.length <= pageRows)).toBe(true);
      }
    }
  });

  it('tells each page its range, and ends every range with a last page (empty for a range without rows)', async () => {
    const rows: Row[] = [0, 1, 2, 3, 4, 9000, 9001].map((t, i) => ({ t, uuid: `u${i}` }));
    const ranges: PageRange[] = [
      { from: null, to: 1000, rows: 5 },
      { from: 1000, to: 5000, rows: 0 },
      { from: 5000, to: null, rows: 2 },
    ];
    const seen: { range: number; uuids: string[]; last: boolean }[] = [];
    const read = async (range: PageRange, after: Keyset | null) => pageOf(rows, range, after, 2);
    for await (const page of pagesByRange(ranges, 2, read, (r) => [r.t, r.uuid])) seen.push({ range: ranges.indexOf(page.range), uuids: page.rows.map((r) => r.uuid), last: page.last });
    expect(seen).toEqual([
      { range: 0, uuids: ['u0', 'u1'], last: false },
      { range: 0, uuids: ['u2', 'u3'], last: false },
      { range: 0, uuids: ['u4'], last: true },
      { range: 1, uuids: [], last: true },
      // A full last page is not known to be last until the next one comes back empty.
      { range: 2, uuids: ['u5', 'u6'], last: false },
      { range: 2, uuids: [], last: true },
    ]);
  });

  it('reads the ranges after the current one meanwhile, and a range past its first page in keyset pages', async () => {
    // Ten one-row spans, then a span of six rows: ranges of three, three, three, one and six rows.
    const rows: Row[] = Array.from({ length: 10 }, (_, i) => ({ t: i * 1000, uuid: `u${i}` }));
    for (let k = 0; k < 6; k++) rows.push({ t: 20_000, uuid: `v${k}` });
    const spans = [...rows.slice(0, 10).map((r) => ({ span: r.t / 1000, rows: 1 })), { span: 20, rows: 6 }];
    const ranges = pageRanges(spans, 1000, 4);
    expect(ranges.map((r) => r.rows)).toEqual([3, 3, 3, 1, 6]);
    const asked: string[] = [];
    const read = async (range: PageRange, after: Keyset | null) => {
      asked.push(`${range.from}:${after?.[1] ?? '-'}`);
      return pageOf(rows, range, after, 4);
    };
    const pages = rangedPages(ranges, 4, read, (r) => [r.t, r.uuid], 2);
    const first = await pages.next();
    expect(first.value).toEqual(rows.slice(0, 3));
    // While the first range is handed on, the two after it are read (two ahead at most).
    expect(asked).toEqual(['null:-', '3000:-', '6000:-']);
    const rest: Row[][] = [];
    for await (const page of pages) rest.push(page);
    expect([first.value, ...rest].flat()).toEqual(pageOf(rows, { from: null, to: null, rows: 0 }, null, 100));
    // One statement per range, and one more for the six-row span past its full first page.
    expect(asked).toEqual(['null:-', '3000:-', '6000:-', '9000:-', '20000:-', '20000:v3']);
  });

  it('leaves a page asked for ahead unheard when the caller stops early', async () => {
    const rows: Row[] = Array.from({ length: 8 }, (_, i) => ({ t: i, uuid: `u${i}` }));
    let calls = 0;
    const read = async (range: PageRange, after: Keyset | null) => {
      calls++;
      if (calls > 1) throw new Error('the store went away');
      return pageOf(rows, range, after, 2);
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    try {
      for await (const page of rangedPages([{ from: null, to: null, rows: 8 }], 2, read, (r) => [r.t, r.uuid])) {
        expect(page).toHaveLength(2);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(calls).toBe(2);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
