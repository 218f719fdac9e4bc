import { embeddedAnalytics } from '../../projections/analytics/embedded';
import { clickhouseFoldedAnalytics } from '../adapters/clickhouse/folded';
import type { AnalyticsChoice } from '../config';
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
