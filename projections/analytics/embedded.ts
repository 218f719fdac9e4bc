import type { AnalyticsEventRow, AnalyticsStore } from '../../src/store/analytics';
import type { ReadModelStore } from '../../src/store/read-models';
import { experimentMetricQueries } from '../experiment-metric-queries';
import { experimentResultsQueries } from '../experiments-results-queries';
import { appendEventsOnce } from '../ingestion/events-table';
import { ingestionQueries } from '../ingestion/queries';

/**
 * The embedded analytics store: the read models' own `events` table (SQLite or PostgreSQL), read
 * with the SQL the events API and experiments have always used. The ingestion fold writes that
 * table inside its transaction, with the checkpoint; `sink` is for writers outside the fold (and
 * the contract suite), idempotent by (project, uuid).
 */
export function embeddedAnalytics(store: ReadModelStore): AnalyticsStore {
  const { session } = store;
  const ingestion = ingestionQueries(session);
  return {
    sink: {
      append: (rows: readonly AnalyticsEventRow[]) => store.transaction((tx) => appendEventsOnce(tx, rows)),
    },
    events: (projectId, filters) => ingestion.events(projectId, filters),
    experiments: experimentResultsQueries(session),
    metrics: experimentMetricQueries(session),
  };
}
