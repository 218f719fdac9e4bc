import { resolve } from 'node:path';
import type { TableSchema } from '../../../store/sql';
import type { ReadModelStore, ReadModelTransaction, TransactionOptions } from '../../../store/read-models';
import type { SqliteDatabase } from '../open';
import { markedIfStoreFault } from '../error-codes';
import { sqliteTableDdl } from './ddl';
import { sqliteDialect } from './dialect';
import { sqliteSession } from './session';

/**
 * The transactions of this thread on each file, whichever store (connection) opens them, take turns:
 * a BEGIN IMMEDIATE while another connection of this thread holds the write lock would wait for it
 * by blocking the thread, so the holder (whose transaction goes on in later microtasks) could never
 * finish, and the waiter would fail with SQLITE_BUSY once the busy timeout ran out. Two runtimes on
 * one data directory in one process (tests, the CLI beside a runtime) hit that.
 */
const turns = new Map<string, Promise<unknown>>();
let memoryStores = 0;

/**
 * The embedded read-model store: one SQLite file. Transactions begin IMMEDIATE (the write lock first,
 * so a second writer on the same file waits instead of failing mid-way), which also serialises them
 * across processes: the lock name is not needed.
 */
export class SqliteReadModelStore implements ReadModelStore {
  readonly dialect = sqliteDialect;
  readonly session;
  private savepoints = 0;
  /** Where this store's transactions queue: its file (an in-memory database is its own). */
  private readonly turnKey: string;

  constructor(readonly db: SqliteDatabase) {
    this.session = sqliteSession(db);
    this.turnKey = db.memory || db.name === '' ? `memory:${++memoryStores}` : resolve(db.name);
  }

  /**
   * Callers on one connection share its one transaction, so theirs take turns (with those of the
   * other stores of this thread on the same file, see `turns`): awaiting inside a
   * transaction lets other promise chains run, and a second BEGIN would fail. Do not open one
   * transaction from inside another (it would wait for itself): use a savepoint.
   */
  transaction<T>(fn: (tx: ReadModelTransaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const key = this.turnKey;
    const run = (turns.get(key) ?? Promise.resolve()).then(() => this.run(fn, options));
    const settled = run.catch(() => undefined);
    turns.set(key, settled);
    void settled.then(() => {
      if (turns.get(key) === settled) turns.delete(key);
    });
    return run;
  }

  /** What fails a transaction (its BEGIN, its work, its COMMIT or ROLLBACK) is marked for the port when SQLite says the store is at fault. */
  private async run<T>(fn: (tx: ReadModelTransaction) => Promise<T>, options: TransactionOptions): Promise<T> {
    try {
      // A deferred transaction reads one snapshot (WAL) without holding the write lock.
      this.db.exec(options.snapshot ? 'BEGIN' : 'BEGIN IMMEDIATE');
      try {
        const result = await fn(this.tx());
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    } catch (err) {
      throw markedIfStoreFault(err);
    }
  }

  async hasTable(name: string): Promise<boolean> {
    return this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private tx(): ReadModelTransaction {
    const db = this.db;
    return {
      ...this.session,
      savepoint: async <T>(fn: () => Promise<T>) => {
        const name = `sp${++this.savepoints}`;
        try {
          db.exec(`SAVEPOINT ${name}`);
          try {
            const result = await fn();
            db.exec(`RELEASE ${name}`);
            return result;
          } catch (err) {
            // A storage fault may have rolled the whole transaction back already.
            if (db.inTransaction) {
              db.exec(`ROLLBACK TO ${name}`);
              db.exec(`RELEASE ${name}`);
            }
            throw err;
          }
        } catch (err) {
          throw markedIfStoreFault(err);
        }
      },
      createTables: async (tables: readonly TableSchema[]) => {
        for (const table of tables) for (const statement of sqliteTableDdl(table)) db.exec(statement);
      },
      dropTables: async (names: readonly string[]) => {
        for (const name of names) db.exec(`DROP TABLE IF EXISTS "${name}"`);
      },
      // SQLite cannot rename an index, and index names are the file's: the new table's are built
      // again under the names queries give (INDEXED BY). Readers keep their snapshot (WAL), so the
      // old tables go at once.
      replaceTables: async (pairs) => {
        for (const { from, to } of pairs) {
          db.exec(`DROP TABLE IF EXISTS "${to.name}"`);
          db.exec(`ALTER TABLE "${from.name}" RENAME TO "${to.name}"`);
          for (const index of Object.keys(from.indexes ?? {})) db.exec(`DROP INDEX IF EXISTS "${index}"`);
          for (const statement of sqliteTableDdl(to)) db.exec(statement);
        }
        return [];
      },
    };
  }
}
