import { randomBytes } from 'node:crypto';
import type { BatchExportRow, RunRow } from '../../../../projections/exports';
import type { ExportRecord } from '../../../exports/destinations';
import type { ExportSource, RunRows } from '../../../exports/worker/export-source';
import { recordFromRow } from '../../../exports/worker/records';
import type { ClickHouseConnection } from '../connection';
import { storedPosition } from '../position';
import { fromMs } from '../time';
import { hogqlRun } from './hogql-run';
import { PAGE_ROWS } from './page-rows';
import { RunPersons, type PersonPropertiesLookup } from './person-properties';
import { standardQuery, type Keyset, type RunWindow } from './run-query';

export type { PersonPropertiesLookup } from './person-properties';
export { readModelPersons } from './person-properties';

/** A standard page row as JSONEachRow gives it (64-bit integers as strings). */
interface StoredRow {
  uuid: string;
  event: string;
  properties: string;
  distinct_id: string;
  project_id: string | number;
  timestamp: string | number;
  received_at: string | number;
  person_id: string | null;
  elements_chain: string;
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
export function clickhouseExportSource(client: ClickHouseConnection, persons: PersonPropertiesLookup, options: { pageRows?: number } = {}): ExportSource {
  // A whole number of batches per statement: every batch but the last is full, as on the other sources.
  const pageRows = (batchSize: number) => batchSize * Math.max(1, Math.floor((options.pageRows ?? PAGE_ROWS) / batchSize));
  return async (exp: BatchExportRow, run: RunRow): Promise<RunRows> => {
    const window: RunWindow = {
      projectId: exp.project_id,
      start: run.data_interval_start,
      end: run.data_interval_end,
      isBackfill: run.backfill_id !== null,
      position: await storedPosition(client),
    };
    const personTable = `export_persons_${randomBytes(8).toString('hex')}`;
    if (exp.hogql_query !== null) return hogqlRun(client, { ...exp, hogql_query: exp.hogql_query }, window, { persons, personTable, pageRows });
    const query = standardQuery(exp, window);
    const [count] = await client.rows<{ n: string | number }>(query.countSql);
    return {
      total: Number(count.n),
      batches: (batchSize, check) => standardBatches(client, query.pageSql, new RunPersons(persons), window.isBackfill, { batchSize, pageRows: pageRows(batchSize) }, check),
      encoded: () => null,
      close: async () => {},
    };
  };
}

async function* standardBatches(
  client: ClickHouseConnection,
  pageSql: (after: Keyset | null, limit: number) => string,
  persons: RunPersons,
  isBackfill: boolean,
  { batchSize, pageRows }: { batchSize: number; pageRows: number },
  check: () => void,
): AsyncGenerator<ExportRecord[]> {
  const lookup = (id: string | null) => persons.get(id);
  let after: Keyset | null = null;
  for (;;) {
    const rows: StoredRow[] = await client.rows<StoredRow>(pageSql(after, pageRows));
    check();
    if (rows.length === 0) return;
    const last: StoredRow = rows[rows.length - 1];
    after = [Number(isBackfill ? last.timestamp : last.received_at), last.uuid];
    for (let i = 0; i < rows.length; i += batchSize) {
      const batch = rows.slice(i, i + batchSize);
      await persons.prefetch(batch.map((r) => r.person_id));
      if (i > 0) check();
      yield batch.map((r) =>
        recordFromRow([r.uuid, r.event, r.properties, r.distinct_id, Number(r.project_id), fromMs(r.timestamp), fromMs(r.received_at), r.person_id, r.elements_chain], lookup),
      );
    }
    if (rows.length < pageRows) return;
  }
}
