import type { TableSchema } from '../../../../projections/sql';
import type { ReadModelStore, ReadModelTransaction, TransactionOptions } from '../../../store/read-models';
import type { SqliteDatabase } from '../../../store/sqlite/open';
import { sqliteTableDdl } from './ddl';
import { sqliteDialect } from './dialect';
import { sqliteSession } from './session';

/**
 * The embedded read-model store: one SQLite file. Transactions begin IMMEDIATE (the write lock first,
 * so a second writer on the same file waits instead of failing mid-way), which also serialises them
 * across processes: the lock name is not needed.
 */
export class SqliteReadModelStore implements ReadModelStore {
  readonly dialect = sqliteDialect;
  readonly session;
  private savepoints = 0;
  /** Transactions of concurrent callers on this one connection take turns. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(readonly db: SqliteDatabase) {
    this.session = sqliteSession(db);
  }

  /**
   * Callers on one connection share its one transaction, so theirs take turns: awaiting inside a
   * transaction lets other promise chains run, and a second BEGIN would fail. Do not open one
   * transaction from inside another (it would wait for itself): use a savepoint.
   */
  transaction<T>(fn: (tx: ReadModelTransaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const run = this.turn.then(() => this.run(fn, options));
    this.turn = run.catch(() => undefined);
    return run;
  }

  private async run<T>(fn: (tx: ReadModelTransaction) => Promise<T>, options: TransactionOptions): Promise<T> {
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
      },
      createTables: async (tables: readonly TableSchema[]) => {
        for (const table of tables) for (const statement of sqliteTableDdl(table)) db.exec(statement);
      },
      dropTables: async (names: readonly string[]) => {
        for (const name of names) db.exec(`DROP TABLE IF EXISTS "${name}"`);
      },
    };
  }
}
