import { createHash } from 'node:crypto';
import pg from 'pg';
import type { SqlValue } from '../../../store/read-model-projection';
import type { TableSchema } from '../../../store/sql';
import { TableLockTimeout, type ReadModelStore, type ReadModelTransaction, type TransactionOptions } from '../../../store/read-models';
import { postgresTableDdl } from './ddl';
import { postgresDialect } from './dialect';
import { postgresSession, streamRows, type Queryable } from './session';
import { StatisticsKeeper } from './statistics';
import { readModelTypes } from './types';

export interface PostgresReadModelOptions {
  /** `postgres://…` URL or discrete settings. */
  connection: string | pg.ClientConfig;
  /** The PostgreSQL schema holding the read models (created when missing). Default `read_models`. */
  schema?: string;
  maxConnections?: number;
  connectTimeoutMs?: number;
}

const UNIQUE_VIOLATION = '23505';
const DUPLICATE_SCHEMA = '42P06';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Read models in one PostgreSQL schema, shared by every process of a deployment. Transactions run
 * READ COMMITTED on one pooled client; a lock name becomes a transaction-level advisory lock keyed by
 * schema and name, so runners in different processes never fold the same projection at once.
 */
/** The suffix of a table (and its indexes) replaced by its next version, until it is dropped. */
const REPLACED = '__replaced';
/** lock_timeout ran out. */
const LOCK_NOT_AVAILABLE = '55P03';

export class PostgresReadModelStore implements ReadModelStore {
  readonly dialect = postgresDialect;
  readonly session;
  private readonly statistics: StatisticsKeeper;

  private constructor(
    private readonly pool: pg.Pool,
    readonly schema: string,
  ) {
    this.session = postgresSession(pool, (sql, params) => this.streamOutside(sql, params));
    this.statistics = new StatisticsKeeper(pool, schema);
  }

  static async open(options: PostgresReadModelOptions): Promise<PostgresReadModelStore> {
    const schema = options.schema ?? 'read_models';
    if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid read-model schema name: ${schema}`);
    const base: pg.ClientConfig = {
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      keepAlive: true,
      ...(typeof options.connection === 'string' ? { connectionString: options.connection } : options.connection),
    };
    const config: pg.PoolConfig = {
      ...base,
      options: `${base.options ?? ''} -c search_path=${schema}`.trim(),
      types: readModelTypes,
      max: options.maxConnections ?? 8,
      // A fold issues statements it does not await one by one (a record's event rows): they go out
      // back to back instead of each waiting for the previous one's answer.
      pipeline: true,
    };
    const pool = new pg.Pool(config);
    // An idle pooled connection that dies must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    try {
      await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`).catch((err: { code?: string }) => {
        // Processes starting together race on IF NOT EXISTS: losing it means the schema is there.
        if (err.code !== UNIQUE_VIOLATION && err.code !== DUPLICATE_SCHEMA) throw err;
      });
    } catch (err) {
      await pool.end();
      throw err;
    }
    return new PostgresReadModelStore(pool, schema);
  }

  async transaction<T>(fn: (tx: ReadModelTransaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query(options.snapshot ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
      for (const name of typeof options.lock === 'string' ? [options.lock] : (options.lock ?? [])) {
        await client.query({ text: 'SELECT pg_advisory_xact_lock($1::bigint)', values: [this.lockKey(name)] });
      }
      if (options.tableLockTimeoutMs !== undefined) await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(options.tableLockTimeoutMs))}`);
      const result = await fn(this.tx(client));
      await client.query('COMMIT');
      if (!options.snapshot) this.statistics.written();
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      if (options.tableLockTimeoutMs !== undefined && (err as { code?: string }).code === LOCK_NOT_AVAILABLE) throw new TableLockTimeout();
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async hasTable(name: string): Promise<boolean> {
    const { rows } = await this.pool.query({
      text: 'SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2',
      values: [this.schema, name],
    });
    return rows.length > 0;
  }

  async close(): Promise<void> {
    await this.statistics.settled();
    await this.pool.end();
  }

  private lockKey(name: string): string {
    return createHash('sha256').update(`read-models:${this.schema}:${name}`).digest().readBigInt64BE(0).toString();
  }

  private tx(client: pg.PoolClient): ReadModelTransaction {
    let savepoints = 0;
    const on: Queryable = client;
    return {
      ...postgresSession(on, (sql, params) => streamRows(on, sql, params)),
      async savepoint<T>(fn: () => Promise<T>) {
        const name = `sp${++savepoints}`;
        await client.query(`SAVEPOINT ${name}`);
        try {
          const result = await fn();
          await client.query(`RELEASE SAVEPOINT ${name}`);
          return result;
        } catch (err) {
          await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
          await client.query(`RELEASE SAVEPOINT ${name}`);
          throw err;
        }
      },
      async createTables(tables: readonly TableSchema[]) {
        for (const table of tables) for (const statement of postgresTableDdl(table)) await client.query(statement);
      },
      async dropTables(names: readonly string[]) {
        for (const name of names) await client.query(`DROP TABLE IF EXISTS "${name}"`);
      },
      // A query that named the old table before this commits waits for its lock and then reads it by
      // its identity: dropped here, it would fail. Renamed aside, it is read as it was, and dropped by
      // the caller later.
      async replaceTables(pairs: readonly { from: TableSchema; to: TableSchema }[]) {
        const aside: string[] = [];
        for (const { from, to } of pairs) {
          const old = `${to.name}${REPLACED}`;
          await client.query(`DROP TABLE IF EXISTS "${old}"`);
          await client.query(`ALTER TABLE IF EXISTS "${to.name}" RENAME TO "${old}"`);
          aside.push(old);
          const names = Object.keys(to.indexes ?? {});
          for (const index of names) await client.query(`ALTER INDEX IF EXISTS "${index}" RENAME TO "${index}${REPLACED}"`);
          await client.query(`ALTER TABLE "${from.name}" RENAME TO "${to.name}"`);
          for (const [i, index] of Object.keys(from.indexes ?? {}).entries()) await client.query(`ALTER INDEX "${index}" RENAME TO "${names[i]}"`);
        }
        return aside;
      },
    };
  }

  /** A stream outside a transaction: a pooled client of its own, in a read-only transaction. */
  private async *streamOutside(sql: string, params: SqlValue[]): AsyncIterable<unknown[]> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN READ ONLY');
      yield* streamRows(client, sql, params);
      await client.query('COMMIT');
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  }
}
