/**
 * What the adapter sends its statements through: a ClickHouse server over HTTP (http-client.ts) or
 * ClickHouse's engine in this process (chdb/). The SQL is the same on both; it is kept to what
 * Debian's 18.16 server understands (../shared/compat/engines.md §C), which chDB's 26.x runs too.
 */
export interface ClickHouseConnection {
  /** The database the statements' unqualified table names are in. */
  readonly database: string;
  /** Rows of a SELECT, decoded from JSONEachRow (64-bit integers come back as strings). */
  rows<T>(select: string): Promise<T[]>;
  /**
   * Rows of a SELECT as arrays in its columns' order, decoded from JSONCompact (64-bit integers come
   * back as strings): one parse per answer and no key per value, for reads of many rows.
   */
  arrays<T extends unknown[] = unknown[]>(select: string): Promise<T[]>;
  /** A statement with no answer (DDL). */
  command(sql: string): Promise<void>;
  /** Rows in one INSERT … FORMAT JSONEachRow: one block, one part. */
  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
  /** A statement run outside `database` (creating or dropping it). */
  serverCommand(sql: string): Promise<string>;
  /** Lets go of what it holds (chDB's session); a server's HTTP connection holds nothing to close. */
  close?(): Promise<void>;
}
