import { compactData } from './compact-data';
import type { ClickHouseConnection } from './connection';

/** Where a ClickHouse server answers over HTTP, and which database its tables live in. */
export interface ClickHouseConfig {
  /** e.g. `http://127.0.0.1:8123`; credentials, when any, as `http://user:password@host:8123`. */
  url: string;
  /** `CLICKHOUSE_DATABASE`, default `default`. */
  database?: string;
}

/**
 * A minimal ClickHouse HTTP client on Node's fetch, kept to what Debian's 18.16 server understands
 * (../shared/compat/engines.md §C): the statement in the POST body (or, for inserts, in the URL with
 * the rows as the body), FORMAT written into the SQL, no server-side parameters (callers build
 * literals with sql-literal.ts), and `wait_end_of_query=1` so an error found late still fails the
 * request instead of arriving after a 200.
 */
export class ClickHouseClient implements ClickHouseConnection {
  readonly database: string;
  private readonly endpoint: URL;
  private readonly authorization: string | undefined;

  constructor(config: ClickHouseConfig) {
    const url = new URL(config.url);
    this.authorization =
      url.username !== '' ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` : undefined;
    url.username = '';
    url.password = '';
    this.endpoint = url;
    this.database = config.database ?? 'default';
  }

  /** Rows of a SELECT, decoded from JSONEachRow (64-bit integers come back as strings). */
  async rows<T>(select: string): Promise<T[]> {
    const text = await this.send(`${select} FORMAT JSONEachRow`);
    const rows: T[] = [];
    for (const line of text.split('\n')) if (line !== '') rows.push(JSON.parse(line) as T);
    return rows;
  }

  async arrays<T extends unknown[] = unknown[]>(select: string): Promise<T[]> {
    return compactData<T>(await this.send(`${select} FORMAT JSONCompact`));
  }

  /** A statement with no answer (DDL). */
  async command(sql: string): Promise<void> {
    await this.send(sql);
  }

  /** Rows in one INSERT … FORMAT JSONEachRow: one request, one block, one part on the server. */
  async insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    let body = '';
    for (const row of rows) body += `${JSON.stringify(row)}\n`;
    await this.send(body, `INSERT INTO ${table} FORMAT JSONEachRow`);
  }

  /** The statement in the body, or (`query` given) in the URL with `body` as its data. */
  private async send(body: string, query?: string, database: string | null = this.database): Promise<string> {
    const url = new URL(this.endpoint);
    if (database !== null) url.searchParams.set('database', database);
    url.searchParams.set('wait_end_of_query', '1');
    if (query !== undefined) url.searchParams.set('query', query);
    const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8' };
    if (this.authorization !== undefined) headers.Authorization = this.authorization;
    const response = await fetchOnce(url, { method: 'POST', body, headers }).catch((error: unknown) => {
      if (!closedSocket(error)) throw error;
      return fetchOnce(url, { method: 'POST', body, headers });
    });
    const text = await response.text();
    if (!response.ok) throw new ClickHouseError(response.status, text.trim(), query ?? body);
    return text;
  }

  /** A statement run outside the configured database (creating or dropping that database). */
  serverCommand(sql: string): Promise<string> {
    return this.send(sql, undefined, null);
  }
}

const fetchOnce = (url: URL, init: RequestInit) => fetch(url, init);

/**
 * Whether fetch failed on a kept-alive connection the server had closed (ClickHouse closes idle
 * ones after keep_alive_timeout, 3 s by default; seen here after a 15 s read). Sending once more is
 * safe for every statement this adapter sends: reads, idempotent DDL, and inserts whose duplicate
 * is an identical row the reads collapse (sink.ts).
 */
function closedSocket(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return cause !== undefined && (cause.code === 'UND_ERR_SOCKET' || cause.code === 'ECONNRESET');
}

/** The server refused a statement: its HTTP status and message, with the statement's start. */
export class ClickHouseError extends Error {
  constructor(
    readonly status: number,
    readonly serverMessage: string,
    statement: string,
  ) {
    super(`ClickHouse ${status}: ${serverMessage} (in: ${statement.slice(0, 200)})`);
    this.name = 'ClickHouseError';
  }
}
