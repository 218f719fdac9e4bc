import type { BatchExportRow, RunRow } from '../../../../projections/exports';
import type { ExportRecord } from '../../../exports/destinations';
import type { ExportSource, RunRows } from '../../../exports/worker/export-source';
import { openSqlite, type SqliteDatabase } from '../open';
import { PersonProperties } from './person-cache';
import { hogqlRecordMapper, PERSON_ID, recordFromRow } from './records';
import { sourceQuery, type SourceQuery } from './source-query';

const bind = (q: SourceQuery) => (q.kind === 'hogql' && Object.keys(q.named).length > 0 ? [...q.params, q.named] : q.params);

/**
 * The export worker's analytics port over the SQLite read-model file. Each run reads on its own
 * read-only connection inside one read transaction, so the count and every page come from one
 * snapshot while ingestion goes on; person properties come from a second connection.
 */
export function sqliteExportSource(readModelsPath: string): ExportSource {
  return (exp: BatchExportRow, run: RunRow): RunRows => {
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
      close() {
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
    const map = hogqlRecordMapper(query.columns);
    const rows = db.prepare(query.sql).raw(true).iterate(...bind(query)) as IterableIterator<unknown[]>;
    let batch: ExportRecord[] = [];
    for (const row of rows) {
      batch.push(map(row));
      if (batch.length >= batchSize) {
        check();
        yield batch;
        batch = [];
      }
    }
    check();
    if (batch.length > 0) yield batch;
    return;
  }
  const page = db.prepare(query.pageSql).raw(true);
  const [timeAt, rowidAt] = query.keyColumns;
  let after: [string, number] = [query.start, -1];
  for (;;) {
    const rows = page.all(...query.pageParams, ...after, batchSize) as unknown[][];
    check();
    if (rows.length === 0) return;
    const last = rows[rows.length - 1];
    after = [last[timeAt] as string, last[rowidAt] as number];
    persons.prefetch(rows.map((r) => r[PERSON_ID] as string | null));
    yield rows.map((r) => recordFromRow(r, lookup));
    if (rows.length < batchSize) return;
  }
}
