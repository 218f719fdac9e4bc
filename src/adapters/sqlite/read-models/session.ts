import type Database from 'better-sqlite3';
import type { SqlValue } from '../../../store/read-model-projection';
import { columnList, type SqlSession, type TableSchema } from '../../../store/sql';
import type { SqliteDatabase } from '../open';
import { sqliteDialect } from './dialect';
import { rowTextOf, rowTextsSql } from './row-texts';

type Statement = Database.Statement<unknown[]>;

/**
 * The port's session over one better-sqlite3 connection. Statements run synchronously and the
 * promises are already settled, so a transaction of such calls finishes within one turn of the
 * event loop: no request handler can interleave with it on the shared connection.
 */
export function sqliteSession(db: SqliteDatabase): SqlSession {
  const cache = new Map<string, Statement>();
  const prepared = (sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = db.prepare<unknown[]>(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  };
  return {
    dialect: sqliteDialect,
    async all<R>(sql: string, ...params: SqlValue[]) {
      return prepared(sql).all(...params) as R[];
    },
    async get<R>(sql: string, ...params: SqlValue[]) {
      return prepared(sql).get(...params) as R | undefined;
    },
    async run(sql: string, ...params: SqlValue[]) {
      return { changes: prepared(sql).run(...params).changes };
    },
    async *stream(sql: string, ...params: SqlValue[]) {
      // A statement of its own: the cached one may be iterated by another reader meanwhile.
      yield* db.prepare(sql).raw(true).iterate(...params) as IterableIterator<unknown[]>;
    },
    async *rowTexts(table: TableSchema) {
      // A statement of its own, as stream's.
      for (const text of db.prepare(rowTextsSql(table)).pluck(true).iterate() as IterableIterator<string>) yield rowTextOf(text);
    },
    async insertRows(table: TableSchema, rows: readonly (readonly SqlValue[])[]) {
      const stmt = prepared(insertSql(table));
      for (const row of rows) stmt.run(...row);
    },
  };
}

const inserts = new WeakMap<TableSchema, string>();

/** A one-row INSERT of every column of `table`, in declaration order. */
function insertSql(table: TableSchema): string {
  let sql = inserts.get(table);
  if (!sql) {
    sql = `INSERT INTO "${table.name}" (${columnList(table)}) VALUES (${Object.keys(table.columns).map(() => '?').join(', ')})`;
    inserts.set(table, sql);
  }
  return sql;
}
