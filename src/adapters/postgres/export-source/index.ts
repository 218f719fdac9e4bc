import type { BatchExportRow, RunRow } from '../../../../projections/exports';
import type { SqlSession } from '../../../store/sql';
import type { ExportRecord } from '../../../exports/destinations';
import type { ExportSource, RunRows } from '../../../exports/worker/export-source';
import { hogqlBatches, PERSON_ID, recordFromRow } from '../../../exports/worker/records';
import type { ReadModelStore } from '../../../store/read-models';
import { sourceQuery, type SourceQuery } from './source-query';

/** Persons looked up per page, kept for the run up to this many (then the cache starts over). */
const MAX_PERSONS = 100_000;

/**
 * The export worker's analytics port over the read models in PostgreSQL. Each run reads inside one
 * REPEATABLE READ read-only transaction (the store's snapshot transaction), held open until the run
 * closes, so the count and every page come from one snapshot while ingestion goes on. No reader
 * threads: `encoded` is null and the writers encode the records.
 */
export function postgresExportSource(store: ReadModelStore): ExportSource {
  return async (exp: BatchExportRow, run: RunRow): Promise<RunRows> => {
    const { session, finish } = await heldSnapshot(store);
    try {
      const query = sourceQuery(session.dialect, exp, {
        projectId: exp.project_id,
        start: run.data_interval_start,
        end: run.data_interval_end,
        isBackfill: run.backfill_id !== null,
      });
      const total = (await session.get<{ n: number }>(query.countSql, ...query.countParams))!.n;
      return {
        total,
        batches: (batchSize, check) => batches(session, query, batchSize, check),
        encoded: () => null,
        close: finish,
      };
    } catch (err) {
      await finish();
      throw err;
    }
  };
}

/** A snapshot transaction kept open until `finish` (which never throws: the reads are done by then). */
async function heldSnapshot(store: ReadModelStore): Promise<{ session: SqlSession; finish: () => Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let opened!: (session: SqlSession) => void;
  const ready = new Promise<SqlSession>((resolve) => (opened = resolve));
  const done = store.transaction(
    async (tx) => {
      opened(tx);
      await released;
    },
    { snapshot: true },
  );
  const session = await Promise.race([ready, done.then(() => Promise.reject(new Error('export snapshot ended before it opened')))]);
  return {
    session,
    finish: async () => {
      release();
      await done.catch(() => undefined);
    },
  };
}

async function* batches(session: SqlSession, query: SourceQuery, batchSize: number, check: () => void): AsyncGenerator<ExportRecord[]> {
  if (query.kind === 'hogql') {
    yield* hogqlBatches(session.stream(query.sql, ...query.params), query.columns, batchSize, check);
    return;
  }
  const persons = new Map<string, string | null>();
  let after: [string, string] = [query.start, ''];
  for (;;) {
    // Rows as arrays in SELECT order (the names are unique: the keyset columns are aliased).
    const rows = (await session.all(query.pageSql, ...query.params, ...after, batchSize)).map((r) => Object.values(r));
    check();
    if (rows.length === 0) return;
    const last = rows[rows.length - 1];
    after = [last[last.length - 2] as string, last[last.length - 1] as string];
    await prefetchPersons(session, persons, rows.map((r) => r[PERSON_ID] as string | null));
    yield rows.map((r) => recordFromRow(r, (id) => (id === null ? null : (persons.get(id) ?? null))));
    if (rows.length < batchSize) return;
  }
}

/** Loads the properties of the persons not cached yet (ids without a person are cached as null). */
async function prefetchPersons(session: SqlSession, cache: Map<string, string | null>, ids: readonly (string | null)[]) {
  const missing = [...new Set(ids.filter((id): id is string => id !== null && !cache.has(id)))];
  if (missing.length === 0) return;
  if (cache.size + missing.length > MAX_PERSONS) cache.clear();
  for (const id of missing) cache.set(id, null);
  const rows = await session.all<{ uuid: string; properties: string }>(
    `SELECT uuid, properties FROM persons WHERE ${session.dialect.inJsonArray('uuid', 'text')}`,
    JSON.stringify(missing),
  );
  for (const row of rows) cache.set(row.uuid, row.properties);
}
