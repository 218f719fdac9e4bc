/**
 * The synchronous SQL store the embedded read models live in, as the runtime (runner, digests,
 * quarantine) sees it: the SQLite adapter's connection satisfies it structurally, and the runtime
 * names this type instead of the adapter's. The asynchronous read-model port of the scale-out design
 * replaces it.
 */
export interface SqlDatabaseStatement<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): { changes: number };
  get(...params: P): R | undefined;
  all(...params: P): R[];
  iterate(...params: P): IterableIterator<R>;
  /** Rows as arrays of column values instead of objects. */
  raw(toggle?: boolean): this;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyFunction = (...args: any[]) => unknown;
type ArgumentsOf<F extends AnyFunction> = F extends (...args: infer A) => unknown ? A : never;

export interface SqlTransaction<F extends AnyFunction> {
  (...args: ArgumentsOf<F>): ReturnType<F>;
  /** BEGIN IMMEDIATE: takes the write lock first, so a concurrent writer waits instead of failing mid-way. */
  immediate(...args: ArgumentsOf<F>): ReturnType<F>;
}

export interface SqlDatabase {
  /** Parameters as a tuple, or one object of named parameters (the shape better-sqlite3 declares). */
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  prepare<P extends unknown[] | {} = unknown[], R = unknown>(sql: string): P extends unknown[] ? SqlDatabaseStatement<P, R> : SqlDatabaseStatement<[P], R>;
  exec(sql: string): unknown;
  transaction<F extends AnyFunction>(fn: F): SqlTransaction<F>;
}
