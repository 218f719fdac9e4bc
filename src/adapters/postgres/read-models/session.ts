import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { SqlValue } from '../../../../projections/projection';
import type { ColumnType, SqlSession, TableSchema } from '../../../../projections/sql';
import { postgresDialect } from './dialect';
import { numberPlaceholders } from './placeholders';

const STREAM_PAGE = 1000;

/** Portable SQL translated once per text, and prepared once per connection under a stable name. */
const texts = new Map<string, { text: string; name: string }>();
function translated(sql: string) {
  let t = texts.get(sql);
  if (!t) {
    const text = numberPlaceholders(sql);
    t = { text, name: `rm_${createHash('sha1').update(text).digest('hex').slice(0, 20)}` };
    texts.set(sql, t);
  }
  return t;
}

const value = (p: SqlValue) => (typeof p === 'bigint' ? p.toString() : p);
const values = (params: SqlValue[]) => params.map(value);

/** Where statements run: the pool (each on any connection) or the one client of a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

let cursors = 0;

/**
 * The port's session over PostgreSQL. `stream` needs a transaction for its cursor, so the caller
 * says how to stream: on the transaction's own client, or on a pooled one in a read-only transaction.
 */
export function postgresSession(on: Queryable, stream: (sql: string, params: SqlValue[]) => AsyncIterable<unknown[]>): SqlSession {
  return {
    dialect: postgresDialect,
    async all<R>(sql: string, ...params: SqlValue[]) {
      const { text, name } = translated(sql);
      return (await on.query({ name, text, values: values(params) })).rows as R[];
    },
    async get<R>(sql: string, ...params: SqlValue[]) {
      const { text, name } = translated(sql);
      return (await on.query({ name, text, values: values(params) })).rows[0] as R | undefined;
    },
    async run(sql: string, ...params: SqlValue[]) {
      const { text, name } = translated(sql);
      return { changes: (await on.query({ name, text, values: values(params) })).rowCount ?? 0 };
    },
    stream: (sql: string, ...params: SqlValue[]) => stream(sql, params),
    async insertRows(table: TableSchema, rows: readonly (readonly SqlValue[])[]) {
      if (!rows.length) return;
      const { text, name, width } = insertStatement(table);
      // One array per column: the statement and its plan are the same whatever the number of rows.
      const columns = Array.from({ length: width }, (_, c) => rows.map((row) => value(row[c])));
      await on.query({ name, text, values: columns });
    },
  };
}

const ARRAY_TYPES: Record<ColumnType, string> = { text: 'text[]', integer: 'bigint[]', real: 'float8[]', blob: 'bytea[]' };
const inserts = new WeakMap<TableSchema, { text: string; name: string; width: number }>();

/** Every column of `table` from one array parameter each, unnested in step (rows keep their order). */
function insertStatement(table: TableSchema) {
  let statement = inserts.get(table);
  if (!statement) {
    const columns = Object.entries(table.columns);
    const arrays = columns.map(([, type], i) => `$${i + 1}::${ARRAY_TYPES[type.replace('?', '') as ColumnType]}`);
    const text = `INSERT INTO "${table.name}" (${columns.map(([c]) => `"${c}"`).join(', ')}) SELECT * FROM unnest(${arrays.join(', ')})`;
    statement = { text, name: `rm_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, width: columns.length };
    inserts.set(table, statement);
  }
  return statement;
}

/** Rows through a cursor, a page at a time; `on` must be inside a transaction. */
export async function* streamRows(on: Queryable, sql: string, params: SqlValue[]): AsyncIterable<unknown[]> {
  const cursor = `rm_cursor_${++cursors}`;
  await on.query({ text: `DECLARE ${cursor} NO SCROLL CURSOR FOR ${numberPlaceholders(sql)}`, values: values(params) });
  try {
    for (;;) {
      const page = await on.query({ text: `FETCH ${STREAM_PAGE} FROM ${cursor}`, rowMode: 'array' } as pg.QueryConfig);
      for (const row of page.rows as unknown as unknown[][]) yield row;
      if (page.rows.length < STREAM_PAGE) break;
    }
  } finally {
    await on.query({ text: `CLOSE ${cursor}` }).catch(() => undefined);
  }
}
