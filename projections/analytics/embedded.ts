import type { AnalyticsEventRow, AnalyticsStore, PersonMappingRow } from '../../src/store/analytics';
import type { ReadModelStore } from '../../src/store/read-models';
import { experimentMetricQueries } from '../experiment-metric-queries';
import { experimentResultsQueries } from '../experiments-results-queries';
import { appendEventsOnce } from '../ingestion/events-table';
import { ingestionQueries } from '../ingestion/queries';
import { mapPersons } from './person-mapping';

/**
 * The embedded analytics store: the read models' own `events` table (SQLite or PostgreSQL), read
 * with the SQL the events API and experiments have always used. The ingestion fold writes that
 * table inside its transaction, with the checkpoint; `sink` is for writers outside the fold (and
 * the contract suite), idempotent by (project, uuid). `persons` writes the read models'
 * person_distinct_ids (see PersonMappingSink for why and how it sits beside the fold).
 */
export function embeddedAnalytics(store: ReadModelStore): AnalyticsStore {
  const { session } = store;
  const ingestion = ingestionQueries(session);
  return {
    sink: {
      append: (rows: readonly AnalyticsEventRow[]) => store.transaction((tx) => appendEventsOnce(tx, rows)),
    },
    persons: {
      map: (rows: readonly PersonMappingRow[]) => store.transaction((tx) => mapPersons(tx, rows)),
    },
    events: (projectId, filters) => ingestion.events(projectId, filters),
    experiments: experimentResultsQueries(session),
    metrics: experimentMetricQueries(session),
  };
}
