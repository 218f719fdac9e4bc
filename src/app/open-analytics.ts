import { embeddedAnalytics } from '../../projections/analytics/embedded';
import { clickhouseFoldedAnalytics } from '../adapters/clickhouse/folded';
import { ClickHouseClient } from '../adapters/clickhouse/http-client';
import type { AnalyticsChoice, ClickHouseChoice } from '../config';
import type { AnalyticsStore, FoldedAnalyticsStore } from '../store/analytics';
import type { ReadModelStore } from '../store/read-models';

/**
 * The analytics store the configuration names, as the read-model adapters are chosen here: the
 * read models' own events table (written inside the ingestion fold), or a ClickHouse server, which
 * is `folded` — fed from the log by a projection of its own (analytics-fold.ts).
 */
export function openAnalytics(choice: AnalyticsChoice | undefined, readModels: ReadModelStore): { store: AnalyticsStore; folded: FoldedAnalyticsStore | null } {
  if (choice === undefined || choice.kind === 'embedded') return { store: embeddedAnalytics(readModels), folded: null };
  const folded = clickhouseFoldedAnalytics({ url: choice.url, database: choice.database });
  return { store: folded, folded };
}

/** Drops a ClickHouse analytics database (a replay's scratch copy). */
export async function dropAnalyticsDatabase(choice: ClickHouseChoice): Promise<void> {
  await new ClickHouseClient({ url: choice.url }).serverCommand(`DROP DATABASE IF EXISTS ${choice.database}`);
}
