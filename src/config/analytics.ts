import type { ClickHouseChoice } from './clickhouse';

/**
 * Where the analytics store (the events the events API and experiments read) lives: the read
 * models' own `events` table (default), or a ClickHouse server folded from the log by its own
 * projection (CLICKHOUSE_URL, CLICKHOUSE_DATABASE).
 */
export type AnalyticsChoice = { kind: 'embedded' } | ClickHouseChoice;

/** The choice the two variables make: CLICKHOUSE_URL unset keeps the embedded store. */
export function analyticsChoice(config: { CLICKHOUSE_URL?: string; CLICKHOUSE_DATABASE: string }): AnalyticsChoice {
  return config.CLICKHOUSE_URL === undefined ? { kind: 'embedded' } : { kind: 'clickhouse', url: config.CLICKHOUSE_URL, database: config.CLICKHOUSE_DATABASE };
}
