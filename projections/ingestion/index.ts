import type { CapturedEventData, EventsCapturedData, RecordedEvent } from '../../streams';
import type { Projection, SqlStore } from '../projection';
import { FOLD_WARNING_SOURCE, recordWarning } from './context';
import { foldCaptured, projectIdOf } from './fold-captured';
import { INGESTION, QUARANTINE_WARNING } from './names';
import { forgetCachedPersons } from './person-cache';
import { createIngestionSchema, INGESTION_TABLES } from './schema';

type WarningData = { type: string; source: string; details: Record<string, unknown> };

/**
 * Persons, groups and the analytics events table in ONE fold: an event row records the person its
 * distinct id had at that point of the log, so the three must advance together to replay identically.
 */
export const ingestionProjection: Projection = {
  name: INGESTION,
  // 2: distinct ids ordered by event ordinal (position and index in an EventsCaptured record).
  // 3: device, page, campaign and GeoIP properties lifted from events onto persons (compat §10).
  version: 3,
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
  // One captured event that cannot be folded must not cost the others of its record.
  parts(recorded: RecordedEvent) {
    return recorded.type === 'EventsCaptured' ? (recorded.data as EventsCapturedData).events.length : 0;
  },
  applyPart(recorded: RecordedEvent, index: number, db: SqlStore) {
    foldCaptured(recorded, (recorded.data as EventsCapturedData).events[index], index, db);
  },
  // The person cache must never outlive the rows it mirrors.
  rolledBack(db: SqlStore) {
    forgetCachedPersons(db);
  },
  quarantined(recorded: RecordedEvent, part: number | null, error: string, db: SqlStore) {
    const projectId = projectIdOf(recorded);
    if (projectId === null) return;
    const captured = capturedAt(recorded, part);
    recordWarning(
      db,
      projectId,
      QUARANTINE_WARNING,
      FOLD_WARNING_SOURCE,
      { position: recorded.position, index: part, eventUuid: stringOrNull(captured?.uuid), event: stringOrNull(captured?.event), error },
      recorded.metadata.recordedAt,
    );
  },
};

/** Read defensively: the record being quarantined may be malformed in any way. */
function capturedAt(recorded: RecordedEvent, part: number | null): { uuid?: unknown; event?: unknown } | undefined {
  const data = recorded.data as { events?: unknown[] } | null | undefined;
  const captured = recorded.type === 'EventsCaptured' && part !== null ? data?.events?.[part] : data;
  return typeof captured === 'object' && captured !== null ? captured : undefined;
}

const stringOrNull = (value: unknown) => (typeof value === 'string' ? value : null);

export { QUARANTINE_WARNING } from './names';
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
