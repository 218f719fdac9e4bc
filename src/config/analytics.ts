import { join, resolve } from 'node:path';
import type { FoldedAnalyticsChoice } from './clickhouse';

/**
 * Where the analytics store (the events the events API and experiments read) lives: the read
 * models' own `events` table (default), or ClickHouse folded from the log by a projection of its
 * own: a server (CLICKHOUSE_URL) or the engine in this process (ANALYTICS=chdb, its files in
 * DATA_DIR), each with its tables in CLICKHOUSE_DATABASE.
 */
export type AnalyticsChoice = { kind: 'embedded' } | FoldedAnalyticsChoice;

/** chDB's data directory inside DATA_DIR. */
export const CHDB_DIRECTORY = 'analytics-chdb';

/** The choice the variables make: neither CLICKHOUSE_URL nor ANALYTICS=chdb keeps the embedded store. */
export function analyticsChoice(config: { CLICKHOUSE_URL?: string; CLICKHOUSE_DATABASE: string; ANALYTICS: 'embedded' | 'chdb'; DATA_DIR: string }): AnalyticsChoice {
  if (config.CLICKHOUSE_URL !== undefined) return { kind: 'clickhouse', url: config.CLICKHOUSE_URL, database: config.CLICKHOUSE_DATABASE };
  if (config.ANALYTICS === 'chdb') return { kind: 'chdb', path: resolve(join(config.DATA_DIR, CHDB_DIRECTORY)), database: config.CLICKHOUSE_DATABASE };
  return { kind: 'embedded' };
}
