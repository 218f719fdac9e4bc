import type { FoldedAnalyticsStore } from '../../store/analytics';
import { clickhouseDigest } from './digest';
import type { ClickHouseConnection } from './connection';
import { storedPosition } from './position';
import { createAnalyticsTables } from './schema';
import { clickhouseAnalytics } from './store';

/**
 * The analytics store on ClickHouse as the service opens it (a server, CLICKHOUSE_URL, or chDB): the
 * database created when missing, then the tables; the fold's position is the highest `_position`
 * among the events (max over an empty table is 0 on every version).
 */
export function clickhouseFoldedAnalytics(client: ClickHouseConnection): FoldedAnalyticsStore {
  return {
    ...clickhouseAnalytics(client),
    async open() {
      if (client.database !== 'default') await client.serverCommand(`CREATE DATABASE IF NOT EXISTS ${client.database}`);
      await createAnalyticsTables(client);
    },
    foldedPosition: () => storedPosition(client),
    digest: () => clickhouseDigest(client),
    close: async () => client.close?.(),
  };
}
