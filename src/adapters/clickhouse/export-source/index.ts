import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { BatchExportRow, RunRow } from '../../../../projections/exports';
import type { ExportRecord } from '../../../exports/destinations';
import type { ExportSource, RunRows } from '../../../exports/worker/export-source';
import { recordFromRow } from '../../../exports/worker/records';
import type { ClickHouseConnection } from '../connection';
import type { ClickHouseConfig } from '../http-client';
import { storedPosition } from '../position';
import { fromMs, toMs } from '../time';
import { hogqlRun } from './hogql-run';
import { pageRanges, rangedPages, spanMsFor, type PageRange, type SpanCount } from './page-ranges';
import { encodedLines } from './encoded-lines';
import { PAGE_ROWS } from './page-rows';
import { RunPersons, type PersonPropertiesLookup } from './person-properties';
import { standardQuery, type RunQuery, type RunWindow } from './run-query';
import type { StoredRow } from './stored-row';

export type { PersonPropertiesLookup } from './person-properties';
export { readModelPersons } from './person-properties';

/** Runs with at least this many rows are read and encoded by threads of their own when a writer can take that. */
const ENCODED_MIN_ROWS = 50_000;

/** Rows per encoded chunk: the granularity at which files can be split by size (as the SQLite source's). */
const CHUNK_ROWS = 200;

/** Pages a lines thread may run ahead of the writer. */
const AHEAD_PAGES = 4;

export interface ClickHouseExportSourceOptions {
  pageRows?: number;
  spanMs?: number;
  /**
   * The server the connection reaches, when it is one (not chDB): large standard runs written as
   * JSONLines are then read and encoded on threads with their own HTTP connections.
   */
  server?: ClickHouseConfig;
  /** Runs with at least this many rows take those threads (default ENCODED_MIN_ROWS). */
  encodedMinRows?: number;
  /** Threads that read and encode a run (default: one per core). */
  threads?: number;
}

/**
 * The export worker's analytics port over ClickHouse (a server or chDB): events from the analytics
 * tables, person properties from the read models (`persons`: ClickHouse holds only the distinct id
 * → person mapping). Records are the SQLite source's, byte for byte: the same stored text, times
 * turned back from milliseconds into the same ISO text, the person id stored at ingestion.
 *
 * ClickHouse has no transactions. A run reads a stable set instead: at open it takes the log
 * position the events table has been folded to (the highest `_position`), and the count and every
 * page keep only rows stored at or below it. Each append of the analytics fold is one insert (one
 * part, visible whole or not at all) carrying a higher position than every earlier one, so rows
 * folded while the run reads are never seen, and background merges change nothing read under FINAL.
 * Person properties are read as they are when a page is read, as the SQLite source does.
 */
export function clickhouseExportSource(client: ClickHouseConnection, persons: PersonPropertiesLookup, options: ClickHouseExportSourceOptions = {}): ExportSource {
  // Pages need not hold whole batches: the batches are cut from the rows as they come.
  // Stryker disable next-line LogicalOperator: equivalent, pages of any size give the same rows (sizes are tested in page-ranges.test.ts)
  const pageRows = options.pageRows ?? PAGE_ROWS;
  return async (exp: BatchExportRow, run: RunRow): Promise<RunRows> => {
    const window: RunWindow = {
      projectId: exp.project_id,
      start: run.data_interval_start,
      end: run.data_interval_end,
      isBackfill: run.backfill_id !== null,
      position: await storedPosition(client),
    };
    const spanMs = options.spanMs ?? spanMsFor(toMs(window.start), toMs(window.end));
    const ranges = async (query: RunQuery) => pageRanges(await spansOf(client, query, spanMs), spanMs, pageRows);
    const personTable = `export_persons_${randomBytes(8).toString('hex')}`;
    if (exp.hogql_query !== null) return hogqlRun(client, { ...exp, hogql_query: exp.hogql_query }, window, { persons, personTable, pageRows, ranges });
    const query = standardQuery(exp, window);
    const spans = await spansOf(client, query, spanMs);
    const total = spans.reduce((sum, s) => sum + s.rows, 0);
    const runRanges = pageRanges(spans, spanMs, pageRows);
    const server = options.server;
    return {
      total,
      batches: (batchSize, check) => standardBatches(client, query, runRanges, new RunPersons(persons), window.isBackfill, { batchSize, pageRows }, check),
      encoded: (_format, _batchSize, check) =>
        server && total >= (options.encodedMinRows ?? ENCODED_MIN_ROWS)
          ? encodedLines(
              { config: server, exp, window, pageRows, chunkRows: CHUNK_ROWS, aheadPages: AHEAD_PAGES },
              runRanges,
              persons,
              options.threads ?? availableParallelism(),
              check,
            )
          : null,
      close: async () => {},
    };
  };
}

/** The run's rows per span of its time column (page-ranges.ts). */
async function spansOf(client: ClickHouseConnection, query: RunQuery, spanMs: number): Promise<SpanCount[]> {
  const spans = await client.rows<{ span: string | number; rows: string | number }>(query.spansSql(spanMs));
  return spans.map((s) => ({ span: Number(s.span), rows: Number(s.rows) }));
}

/** Full batches of `batchSize` records (the last may be short), whatever the pages' sizes. */
async function* standardBatches(
  client: ClickHouseConnection,
  query: RunQuery,
  ranges: readonly PageRange[],
  persons: RunPersons,
  isBackfill: boolean,
  { batchSize, pageRows }: { batchSize: number; pageRows: number },
  check: () => void,
): AsyncGenerator<ExportRecord[]> {
  const lookup = (id: string | null) => persons.get(id);
  const pages = rangedPages(
    ranges,
    pageRows,
    (range, after) => client.arrays<StoredRow>(query.pageSql(after, pageRows, range)),
    (r) => [Number(isBackfill ? r[5] : r[6]), r[0]],
  );
  const toRecords = async (batch: StoredRow[]) => {
    await persons.prefetch(batch.map((r) => r[7]));
    // Each row becomes recordFromRow's in place (the project a number, the times ISO text): it is read
    // once, and its page's keyset was taken when the page arrived.
    return batch.map((r) => {
      r[4] = Number(r[4]);
      r[5] = fromMs(r[5]);
      r[6] = fromMs(r[6]);
      return recordFromRow(r, lookup);
    });
  };
  let held: StoredRow[] = [];
  for await (const page of pages) {
    check();
    // Stryker disable next-line ConditionalExpression: equivalent, a shortcut for the usual case (nothing held over)
    held = held.length === 0 ? page : held.concat(page);
    let i = 0;
    // Stryker disable next-line EqualityOperator: equivalent, a full batch held back is handed on with the next page or at the end, cut the same
    for (; held.length - i >= batchSize; i += batchSize) {
      const records = await toRecords(held.slice(i, i + batchSize));
      check();
      yield records;
    }
    held = held.slice(i);
  }
  check();
  if (held.length > 0) yield await toRecords(held);
}
