import type { BatchExportRow, RunRow } from '../../../projections/exports';
import { openSqlite, type SqliteDatabase } from '../../store/sqlite/open';
import { getDestination, nonRetryableError, type ExportRecord, type LogLevel } from '../destinations';
import { PersonProperties } from './person-cache';
import { hogqlRecordMapper, PERSON_ID, recordFromRow } from './records';
import { sourceQuery, type SourceQuery } from './source-query';

export type AbandonReason = 'cancelled' | 'superseded' | 'stopping';

const ABANDON_MESSAGES: Record<AbandonReason, string> = {
  cancelled: 'Run cancelled; export stopped',
  superseded: 'Another attempt took the run over; export stopped',
  stopping: 'The worker is stopping',
};

/** Thrown from the record source when the run stopped being this attempt's to finish. */
export class RunAbandonedError extends Error {
  constructor(readonly reason: AbandonReason) {
    super(ABANDON_MESSAGES[reason]);
    this.name = 'RunAbandonedError';
  }
}

export interface ExecuteOptions {
  exp: BatchExportRow;
  run: RunRow;
  /** The read-model file holding the analytics table; each run reads it on its own connection. */
  readModelsPath: string;
  batchSize: number;
  log: (level: LogLevel, message: string) => void;
  /** Checked between batches; a reason stops the export. */
  abandoned: () => AbandonReason | null;
}

export interface ExecuteResult {
  recordsCompleted: number;
  recordsTotalCount: number;
  bytesExported: number | null;
}

const bind = (q: SourceQuery) => (q.kind === 'hogql' && Object.keys(q.named).length > 0 ? [...q.params, q.named] : q.params);

/**
 * Reads the run's rows in batches from a read-only connection and hands them to the destination,
 * which does the writing and its own idempotence. One read transaction spans the count and every
 * page, so the run sees one snapshot (and its total matches what it exports) while ingestion goes on.
 */
export async function executeRun(options: ExecuteOptions): Promise<ExecuteResult> {
  const { exp, run } = options;
  const destination = getDestination(exp.destination_type);
  if (!destination) throw nonRetryableError(`Unsupported destination type '${exp.destination_type}'`);
  const query = sourceQuery(exp, {
    projectId: exp.project_id,
    start: run.data_interval_start,
    end: run.data_interval_end,
    isBackfill: run.backfill_id !== null,
  });
  const db = openSqlite(options.readModelsPath, { readonly: true });
  const lookups = openSqlite(options.readModelsPath, { readonly: true });
  db.exec('BEGIN');
  try {
    const total = (db.prepare(query.countSql).get(...bind(query)) as { n: number }).n;
    options.log('DEBUG', `${total} records in the interval`);
    const result = await destination.write(
      exp.destination_config,
      {
        batchExportId: exp.id,
        runId: run.id,
        teamId: exp.project_id,
        dataIntervalStart: new Date(run.data_interval_start),
        dataIntervalEnd: new Date(run.data_interval_end),
        isBackfill: run.backfill_id !== null,
        log: options.log,
      },
      batches(db, query, new PersonProperties(lookups), options),
    );
    return { recordsCompleted: result.recordsCompleted, recordsTotalCount: total, bytesExported: result.bytesExported ?? null };
  } finally {
    db.exec('COMMIT');
    db.close();
    lookups.close();
  }
}

async function* batches(db: SqliteDatabase, query: SourceQuery, persons: PersonProperties, options: ExecuteOptions): AsyncGenerator<ExportRecord[]> {
  const lookup = (personId: string | null) => persons.get(personId);
  const check = () => {
    const reason = options.abandoned();
    if (reason) throw new RunAbandonedError(reason);
  };
  if (query.kind === 'hogql') {
    const map = hogqlRecordMapper(query.columns);
    const rows = db.prepare(query.sql).raw(true).iterate(...bind(query)) as IterableIterator<unknown[]>;
    let batch: ExportRecord[] = [];
    for (const row of rows) {
      batch.push(map(row));
      if (batch.length >= options.batchSize) {
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
    const rows = page.all(...query.pageParams, ...after, options.batchSize) as unknown[][];
    check();
    if (rows.length === 0) return;
    const last = rows[rows.length - 1];
    after = [last[timeAt] as string, last[rowidAt] as number];
    persons.prefetch(rows.map((r) => r[PERSON_ID] as string | null));
    yield rows.map((r) => recordFromRow(r, lookup));
    if (rows.length < options.batchSize) return;
  }
}
