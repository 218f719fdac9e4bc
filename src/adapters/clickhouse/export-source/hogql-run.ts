import type { BatchExportRow } from '../../../../projections/exports';
import { UNREADABLE_PROPERTY, type CompiledColumn } from '../../../exports/hogql';
import type { RunRows } from '../../../exports/worker/export-source';
import { hogqlBatches } from '../../../exports/worker/records';
import type { ClickHouseConnection } from '../connection';
import { fromMs } from '../time';
import type { PersonPropertiesLookup } from './person-properties';
import { rangedPages, type PageRange } from './page-ranges';
import { hogqlQuery, type HogQLRunQuery, type RunWindow } from './run-query';

type Row = Record<string, unknown>;

/**
 * The query's rows, a failed property guard (the dialect's throwIf, ClickHouse's message on every
 * version: "Value passed to 'throwIf' function is non zero") said as what it means.
 */
async function read<T>(client: ClickHouseConnection, sql: string): Promise<T[]> {
  try {
    return await client.rows<T>(sql);
  } catch (err) {
    if (err instanceof Error && err.message.includes("'throwIf'")) throw new Error(UNREADABLE_PROPERTY, { cause: err });
    throw err;
  }
}

/** 64-bit integer types, which JSONEachRow quotes (18.16 ignores the setting that would not). */
const QUOTED_INTEGER = /^(?:Nullable\()?U?Int(?:64|128|256)\)?$/;

/**
 * A hogql_query run. A query may read `person_properties`, which live in the read models: the
 * run's persons are copied first into a table of the run's own (Memory engine, dropped on close)
 * that the events are joined with. A table rather than literals in the statement: a run's persons
 * would soon pass 18.16's 256 KiB max_query_size. A crash before close leaves an
 * `export_persons_*` table behind, which nothing reads again.
 */
export async function hogqlRun(
  client: ClickHouseConnection,
  exp: BatchExportRow & { hogql_query: string },
  window: RunWindow,
  {
    persons,
    personTable,
    pageRows,
    ranges,
  }: {
    persons: PersonPropertiesLookup;
    personTable: string;
    pageRows: number;
    /** The run's page ranges (page-ranges.ts). */
    ranges: (query: HogQLRunQuery) => Promise<PageRange[]>;
  },
): Promise<RunRows> {
  const query = hogqlQuery(exp, window, personTable);
  await client.command(`CREATE TABLE ${personTable} (person_key String, person_properties Nullable(String)) ENGINE = Memory`);
  const drop = () => client.command(`DROP TABLE IF EXISTS ${personTable}`);
  try {
    const ids = (await client.rows<{ person_id: string }>(query.personIdsSql)).map((r) => r.person_id);
    const found = await persons(ids);
    await client.insert(personTable, [...found].map(([person_key, person_properties]) => ({ person_key, person_properties })));
    const integers = await integerColumns(client, query);
    const [count] = await read<{ n: string | number }>(client, query.countSql);
    return {
      total: Number(count.n),
      batches: (batchSize, check) => hogqlBatches(pagedRows(client, query, integers, window.isBackfill, pageRows, () => ranges(query)), query.columns, batchSize, check),
      encoded: () => null,
      close: drop,
    };
  } catch (err) {
    await drop();
    throw err;
  }
}

/** The compiled columns JSONEachRow quotes: exported as numbers, as SQLite gives them. */
async function integerColumns(client: ClickHouseConnection, query: HogQLRunQuery): Promise<Set<string>> {
  const types = await client.rows<{ name: string; type: string }>(query.typesSql);
  return new Set(types.filter((t) => QUOTED_INTEGER.test(t.type)).map((t) => t.name));
}

/** Rows in hogqlRecordMapper's layout (identity columns, then the compiled ones), read in keyset pages per range. */
async function* pagedRows(
  client: ClickHouseConnection,
  query: HogQLRunQuery,
  integers: Set<string>,
  isBackfill: boolean,
  pageRows: number,
  ranges: () => Promise<PageRange[]>,
): AsyncGenerator<unknown[]> {
  const value = (column: CompiledColumn, row: Row) => {
    const v = row[column.name];
    return integers.has(column.name) && typeof v === 'string' ? Number(v) : v;
  };
  const pages = rangedPages(
    await ranges(),
    pageRows,
    (range, after) => read<Row>(client, query.pageSql(after, pageRows, range)),
    (r) => [Number(isBackfill ? r.x_event_ms : r.x_received_ms), r.x_uuid as string],
  );
  for await (const page of pages) {
    for (const r of page) {
      yield [r.x_uuid, r.x_event, r.x_distinct_id, Number(r.x_team_id), fromMs(r.x_event_ms as string), fromMs(r.x_received_ms as string), ...query.columns.map((c) => value(c, r))];
    }
  }
}
