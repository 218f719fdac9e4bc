import type { SqlDialect, SqlSession, TableSchema } from './sql';

/** A read-model transaction: the session a batch of folds writes through, and the schema moves the runner makes. */
export interface ReadModelTransaction extends SqlSession {
  /** Runs `fn` in a savepoint: if it throws, its writes alone are undone and the error is rethrown. */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
  /** Creates the tables and indexes that do not exist yet (idempotent), in this transaction. */
  createTables(tables: readonly TableSchema[]): Promise<void>;
  dropTables(names: readonly string[]): Promise<void>;
  /**
   * Puts each `from` table (a projection's next version, built side by side) in place of its `to`
   * table: the new one takes its name and ends with `to`'s indexes under their names. Answers the
   * tables the caller drops in a later transaction (the old ones, where an engine lets a reader that
   * is already waiting for them finish on them), or none when they are gone already.
   */
  replaceTables(pairs: readonly { from: TableSchema; to: TableSchema }[]): Promise<readonly string[]>;
}

export interface TransactionOptions {
  /**
   * A name to serialise on: two transactions holding the same lock name never overlap, whichever
   * process runs them (the runner locks per projection, so two runners cannot fold one batch twice).
   * Several names are taken in the order given.
   */
  lock?: string | readonly string[];
  /** Reads only, all from one snapshot (digests with their checkpoint); takes no write lock. */
  snapshot?: boolean;
  /**
   * For schema moves that readers must not wait on long (a take-over): a table lock that others
   * hold for longer than this fails the transaction with a TableLockTimeout, to be tried again,
   * instead of queueing readers behind it (or deadlocking with a reader that holds one of the
   * tables and waits for another). Engines whose readers never wait for writers ignore it.
   */
  tableLockTimeoutMs?: number;
}

/** A transaction gave up waiting for a table lock (see `tableLockTimeoutMs`): nothing was written. */
export class TableLockTimeout extends Error {
  constructor() {
    super('gave up waiting for a table lock');
  }
}

/**
 * The read-model port: where projections keep their rows and queries read them. One transaction
 * applies a batch and moves the projection's checkpoint atomically. Adapters: SQLite (embedded,
 * one file per store) and PostgreSQL (shared by every process).
 */
export interface ReadModelStore {
  readonly dialect: SqlDialect;
  /** Reads outside any transaction (each statement sees committed rows). */
  readonly session: SqlSession;
  transaction<T>(fn: (tx: ReadModelTransaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Whether a table exists (a store that predates a table). */
  hasTable(name: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A fresh, empty store of its own (in memory, private to the caller), for a fold that is read once
 * and thrown away: a resource as it stood at a point of the log (src/time-travel). Close it after use.
 */
export type ScratchStores = () => ReadModelStore;
