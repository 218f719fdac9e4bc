import type { CapturedEventData, EventsCapturedData, RecordedEvent } from '../../streams';
import type { Projection, SqlStore } from '../projection';
import { recordWarning } from './context';
import { foldCaptured, projectIdOf } from './fold-captured';
import { createIngestionSchema, INGESTION_TABLES } from './schema';

type WarningData = { type: string; source: string; details: Record<string, unknown> };

/**
 * Persons, groups and the analytics events table in ONE fold: an event row records the person its
 * distinct id had at that point of the log, so the three must advance together to replay identically.
 */
export const ingestionProjection: Projection = {
  name: 'ingestion',
  // 2: distinct ids ordered by event ordinal (position and index in an EventsCaptured record).
  version: 2,
  store: 'readmodels',
  handles: ['EventCaptured', 'EventsCaptured', 'IngestionWarningRaised'],
  tables: INGESTION_TABLES,
  setup(db: SqlStore) {
    createIngestionSchema(db);
  },
  apply(recorded: RecordedEvent, db: SqlStore) {
    if (recorded.type === 'EventsCaptured') {
      const { events } = recorded.data as EventsCapturedData;
      for (let i = 0; i < events.length; i++) foldCaptured(recorded, events[i], i, db);
      return;
    }
    if (recorded.type === 'EventCaptured') {
      foldCaptured(recorded, recorded.data as CapturedEventData, 0, db);
      return;
    }
    if (recorded.type === 'IngestionWarningRaised') {
      const projectId = projectIdOf(recorded);
      if (projectId === null) return;
      const data = recorded.data as WarningData;
      recordWarning(db, projectId, data.type, data.source, data.details ?? {}, recorded.metadata.recordedAt);
    }
  },
};

export { ingestionQueries } from './queries';
export type { IngestionQueries } from './queries';
export type {
  EventApi,
  EventFilters,
  GroupApi,
  GroupTypeMapping,
  IngestionWarningApi,
  Page,
  PageOptions,
  PersonApi,
  PersonRecord,
} from './api-types';
export { personUuid, isDistinctIdIllegal, PERSON_UUID_NAMESPACE } from './ids';
export { MAX_GROUP_TYPES } from './groups';
export type { Properties } from './properties';
