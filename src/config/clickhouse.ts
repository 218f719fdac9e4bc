/** A ClickHouse server holding the analytics tables in `database`. */
export interface ClickHouseChoice {
  kind: 'clickhouse';
  url: string;
  database: string;
}

/** ClickHouse's engine in this process (chDB), its data directory at `path` (in DATA_DIR). */
export interface ChdbChoice {
  kind: 'chdb';
  path: string;
  database: string;
}

/** An analytics store outside the read models, fed by a projection of its own. */
export type FoldedAnalyticsChoice = ClickHouseChoice | ChdbChoice;

/** Reads CLICKHOUSE_URL: an http(s) URL (credentials, when any, in it); a message for anything else. */
export function parseClickHouseUrl(value: string): string | { error: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { error: 'expected an http:// or https:// URL of a ClickHouse server (its HTTP port, e.g. http://127.0.0.1:8123)' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: 'expected an http:// or https:// URL (ClickHouse\'s HTTP interface)' };
  return value;
}
