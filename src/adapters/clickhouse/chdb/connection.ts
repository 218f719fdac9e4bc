import type { ClickHouseConnection } from '../connection';
import { compactData } from '../compact-data';
import { chdbEngine, type ChdbEngine } from './engine';

/** One database on the process's chDB engine at `path`, with the server connection's contract. */
export class ChdbConnection implements ClickHouseConnection {
  private readonly engine: ChdbEngine;
  private closed = false;

  constructor(
    path: string,
    readonly database: string = 'default',
  ) {
    this.engine = chdbEngine(path);
    this.engine.acquire();
  }

  async rows<T>(select: string): Promise<T[]> {
    const text = await this.engine.query(this.database, select, 'JSONEachRow');
    const rows: T[] = [];
    for (const line of text.split('\n')) if (line !== '') rows.push(JSON.parse(line) as T);
    return rows;
  }

  async arrays<T extends unknown[] = unknown[]>(select: string): Promise<T[]> {
    return compactData<T>(await this.engine.query(this.database, select, 'JSONCompact'));
  }

  async command(sql: string): Promise<void> {
    await this.engine.query(this.database, sql);
  }

  async insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    let values = '';
    for (const row of rows) values += `${JSON.stringify(row)}\n`;
    await this.engine.insert(this.database, table, values);
  }

  serverCommand(sql: string): Promise<string> {
    return this.engine.query(null, sql);
  }

  /** Lets go of the engine (the last connection closes chDB's session). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.engine.release();
  }
}
