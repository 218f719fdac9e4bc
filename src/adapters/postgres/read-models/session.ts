import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { SqlValue } from '../../../store/read-model-projection';
import { columnTypeOf, type ColumnType, type SqlSession, type TableSchema } from '../../../store/sql';
import { encodedRows } from '../../../store/row-text';
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
    rowTexts: (table: TableSchema) => encodedRows((sql, ...params) => stream(sql, params), table),
    async insertRows(table: TableSchema, rows: readonly (readonly SqlValue[])[]) {
      if (!rows.length) return;
      const types = columnTypes(table);
      const params = types.map((type, c) => columnParam(type, rows.map((row) => value(row[c]))));
      const { text, name } = insertStatement(table, params);
      await on.query({ name, text, values: params.map((p) => p.value) });
    },
  };
}

const ARRAY_TYPES: Record<ColumnType, string> = { text: 'text[]', integer: 'bigint[]', real: 'float8[]', blob: 'bytea[]' };
const CASTS: Record<ColumnType, string> = { text: '', integer: '::bigint', real: '::float8', blob: '::bytea' };

type ColumnValue = string | number | Buffer | null;
/** One column's values as one parameter: a JSON array (`json`), or an array parameter. */
interface ColumnParam {
  type: ColumnType;
  json: boolean;
  value: string | ColumnValue[];
}

const typesOf = new WeakMap<TableSchema, ColumnType[]>();
function columnTypes(table: TableSchema): ColumnType[] {
  let types = typesOf.get(table);
  if (!types) typesOf.set(table, (types = Object.values(table.columns).map(columnTypeOf)));
  return types;
}

// A JSON text escape PostgreSQL's json-to-text refuses: NUL, and a lone surrogate (JSON.stringify
// writes one as \udXXX). Such a column goes as an array parameter, which fails or succeeds as
// single-row statements do. An escaped backslash followed by "ud8…" matches too: merely the slower way.
const REFUSED_ESCAPE = /\\u(?:0000|d[89a-f])/;

/**
 * A column's values as a JSON array where JSON can carry them: JSON.stringify escapes natively,
 * where pg writes a text[] literal by escaping each element in JavaScript, which was the largest
 * cost of a fold's inserts. Bytes, and numbers JSON cannot write (NaN, ±Infinity), go as arrays.
 */
function columnParam(type: ColumnType, values: ColumnValue[]): ColumnParam {
  if (type !== 'blob' && values.every((v) => !Buffer.isBuffer(v) && (typeof v !== 'number' || Number.isFinite(v)))) {
    const text = JSON.stringify(values);
    if (!REFUSED_ESCAPE.test(text)) return { type, json: true, value: text };
  }
  return { type, json: false, value: values };
}

/** Per table, a statement per mix of JSON and array parameters ('j'/'a' per column). */
const inserts = new WeakMap<TableSchema, Map<string, { text: string; name: string }>>();

/**
 * Every column of `table` from one parameter each, read in step by ROWS FROM (rows keep their
 * order): a JSON array's elements as text, cast to the column's type, or an array unnested. The
 * statement and its plan are the same whatever the number of rows.
 */
function insertStatement(table: TableSchema, params: readonly ColumnParam[]) {
  let byMix = inserts.get(table);
  if (!byMix) inserts.set(table, (byMix = new Map()));
  const mix = params.map((p) => (p.json ? 'j' : 'a')).join('');
  let statement = byMix.get(mix);
  if (!statement) {
    const columns = Object.keys(table.columns);
    const sources = params.map((p, i) => (p.json ? `json_array_elements_text($${i + 1}::json)` : `unnest($${i + 1}::${ARRAY_TYPES[p.type]})`));
    const selected = params.map((p, i) => `c${i + 1}${p.json ? CASTS[p.type] : ''}`);
    const text =
      `INSERT INTO "${table.name}" (${columns.map((c) => `"${c}"`).join(', ')}) ` +
      `SELECT ${selected.join(', ')} FROM ROWS FROM (${sources.join(', ')}) AS r(${params.map((_, i) => `c${i + 1}`).join(', ')})`;
    statement = { text, name: `rm_${createHash('sha1').update(text).digest('hex').slice(0, 20)}` };
    byMix.set(mix, statement);
  }
  return statement;
}

/** Rows through a cursor, a page at a time; `on` must be inside a transaction. */
export async function* streamRows(on: Queryable, sql: string, params: SqlValue[]): AsyncIterable<unknown[]> {
  const cursor = `rm_cursor_${++cursors}`;
  await on.query({ text: `DECLARE ${cursor} NO SCROLL CURSOR FOR ${numberPlaceholders(sql)}`, values: values(params) });
  try {
    for (;;) {
      const page = await on.query<unknown[]>({ text: `FETCH ${STREAM_PAGE} FROM ${cursor}`, rowMode: 'array' } as pg.QueryConfig);
      for (const row of page.rows) yield row;
      if (page.rows.length < STREAM_PAGE) break;
    }
  } finally {
    await on.query({ text: `CLOSE ${cursor}` }).catch(() => undefined);
  }
}
