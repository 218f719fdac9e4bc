import type { BatchExportRow, RunRow } from '../../../../projections/exports';
import type { ExportRecord } from '../../../exports/destinations';
import type { ExportSource, RunRows } from '../../../exports/worker/export-source';
import { openSqlite, type SqliteDatabase } from '../open';
import { encodedInParallel } from './parallel-lines';
import { PersonProperties } from './person-cache';
import { hogqlBatches, PERSON_ID, recordFromRow } from '../../../exports/worker/records';
import { keysetBefore, keysetOf, sourceQuery, type SourceQuery } from './source-query';

const bind = (q: SourceQuery) => (q.kind === 'hogql' && Object.keys(q.named).length > 0 ? [...q.params, q.named] : q.params);

export interface SqliteSourceOptions {
  /** Runs with at least this many rows are encoded by reader threads when a writer can take that. */
  parallelMinRows?: number;
  /** Reader threads (default: one per core). */
  threads?: number;
  /** Time slices the interval is cut into for the reader threads. */
  slices?: number;
}

/**
 * Below this, starting reader threads (each loads the code and opens the file) costs more than
 * it saves.
 */
const PARALLEL_MIN_ROWS = 50_000;

/**
 * The export worker's analytics port over the SQLite read-model file. Each run reads on its own
 * read-only connection inside one read transaction, so the count and every page come from one
 * snapshot while ingestion goes on; person properties come from a second connection. Large
 * standard runs written as JSONLines are read and encoded by reader threads instead.
 */
export function sqliteExportSource(readModelsPath: string, options: SqliteSourceOptions = {}): ExportSource {
  return async (exp: BatchExportRow, run: RunRow): Promise<RunRows> => {
    const query = sourceQuery(exp, {
      projectId: exp.project_id,
      start: run.data_interval_start,
      end: run.data_interval_end,
      isBackfill: run.backfill_id !== null,
    });
    const db = openSqlite(readModelsPath, { readonly: true });
    const lookups = openSqlite(readModelsPath, { readonly: true });
    db.exec('BEGIN');
    const total = (db.prepare(query.countSql).get(...bind(query)) as { n: number }).n;
    return {
      total,
      batches: (batchSize, check) => batches(db, query, new PersonProperties(lookups), batchSize, check),
      encoded: (_format, batchSize, check) =>
        query.kind === 'pages' && total >= (options.parallelMinRows ?? PARALLEL_MIN_ROWS)
          ? encodedInParallel({ path: readModelsPath, query, end: run.data_interval_end, pageRows: batchSize, rows: total, threads: options.threads, slices: options.slices, check })
          : null,
      async close() {
        db.exec('COMMIT');
        db.close();
        lookups.close();
      },
    };
  };
}

async function* batches(db: SqliteDatabase, query: SourceQuery, persons: PersonProperties, batchSize: number, check: () => void): AsyncGenerator<ExportRecord[]> {
  const lookup = (personId: string | null) => persons.get(personId);
  if (query.kind === 'hogql') {
    yield* hogqlBatches(db.prepare(query.sql).raw(true).iterate(...bind(query)) as IterableIterator<unknown[]>, query.columns, batchSize, check);
    return;
  }
  const page = db.prepare(query.pageSql).raw(true);
  let after = keysetBefore(query.start);
  for (;;) {
    const rows = page.all(...query.pageParams, ...after, batchSize) as unknown[][];
    check();
    if (rows.length === 0) return;
    const last = rows[rows.length - 1];
    after = keysetOf(last);
    persons.prefetch(rows.map((r) => r[PERSON_ID] as string | null));
    yield rows.map((r) => recordFromRow(r, lookup));
    if (rows.length < batchSize) return;
  }
}
