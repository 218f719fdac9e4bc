import type { AnalyticsStore } from '../../store/analytics';
import { listEvents } from './event-list';
import { clickhouseExperimentReads } from './experiment-reads';
import type { ClickHouseConnection } from './connection';
import { clickhouseMetricReads } from './metric-reads';
import { clickhousePersonMapping } from './person-mapping';
import { clickhouseSink } from './sink';

/**
 * The analytics store on a ClickHouse server (tables: schema.ts, created by
 * createAnalyticsTables). Answers as the embedded store does, read for read.
 */
export function clickhouseAnalytics(client: ClickHouseConnection): AnalyticsStore {
  return {
    sink: clickhouseSink(client),
    persons: clickhousePersonMapping(client),
    events: (projectId, filters) => listEvents(client, projectId, filters),
    experiments: clickhouseExperimentReads(client),
    metrics: clickhouseMetricReads(client),
  };
}
