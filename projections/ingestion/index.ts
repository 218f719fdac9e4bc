import type { CapturedEventData, EventsCapturedData, RecordedEvent } from '../../streams';
import type { ReadModelProjection } from '../../src/store/read-model-projection';
import type { SqlSession } from '../../src/store/sql';
import { repointAbsorbed, type Absorbed } from './absorbed-persons';
import { FOLD_WARNING_SOURCE, recordWarning } from './context';
import { foldCaptured, projectIdOf, readRecord, type RecordReads } from './fold-captured';
import { insertEvents, type EventRow } from './events-table';
import { INGESTION, QUARANTINE_WARNING } from './names';
import { PersonCaches } from './person-cache';
import { INGESTION_TABLES } from './schema';
import { recordNamedEvents } from './distinct-id-events';

type WarningData = { type: string; source: string; details: Record<string, unknown> };

/**
 * Persons, groups and the analytics events table in ONE fold: an event row records the person its
 * distinct id had at that point of the log, so the three must advance together to replay identically.
 * Each instance keeps its own person cache (see PersonCaches).
 */
export function createIngestionProjection(): ReadModelProjection {
  const caches = new PersonCaches();
  /**
   * What an EventsCaptured record's events share, read for the whole record; null: fold them one by
   * one. `absorbed` holds the merges of the records folded before it whose rows are not re-pointed
   * yet: the record's reads may name their merged-away persons, and follow them to the survivors.
   */
  const readsOf = (recorded: RecordedEvent, db: SqlSession, absorbed: Absorbed): Promise<RecordReads | null> | null => {
    const { events } = recorded.data as EventsCapturedData;
    const projectId = projectIdOf(recorded);
    return projectId !== null && events.length > 1 ? readRecord(db, caches.of(db), projectId, events, absorbed) : null;
  };
  /**
   * The record's events in order; with `reads`, their rows are left in `reads.rows` for the caller
   * to insert. Answers the indexes of the events that belong in the named ids' history.
   */
  const foldRecord = async (recorded: RecordedEvent, db: SqlSession, reads: RecordReads | null): Promise<number[]> => {
    const { events } = recorded.data as EventsCapturedData;
    const cache = caches.of(db);
    const named: number[] = [];
    for (let i = 0; i < events.length; i++) {
      const pending = foldCaptured(recorded, events[i], i, db, cache, reads);
      if (pending === true || (pending !== false && (await pending))) named.push(i);
    }
    return named;
  };
  const recordIds = async (recorded: RecordedEvent, db: SqlSession, parts: readonly number[]) => {
    const projectId = projectIdOf(recorded);
    if (projectId !== null && parts.length > 0) await recordNamedEvents(db, projectId, recorded, parts);
  };
  return {
    name: INGESTION,
    // 2: distinct ids ordered by event ordinal (position and index in an EventsCaptured record).
    // 3: device, page, campaign and GeoIP properties lifted from events onto persons (compat §10).
    // 4: portable tables: persons.seq (listing order, was the rowid), events keyed by (project_id, uuid),
    //    warning ids assigned by the fold.
    // 5: the time indexes end with uuid (the exports' keyset on every engine).
    // 6: persons and distinct ids ordered by (seq_position, seq_index), never a product of a position.
    // 7: the time indexes no longer end with uuid (exports sort each run of equal times instead).
    // 8: warnings keyed by (position, seq), not a counter shared by all projects: projects fold in lanes.
    // 9: the records naming each distinct id and group, and the merges (time travel).
    // 10: the events naming each distinct id and group, copied (distinct-id-events.ts): a person's past
    //     is folded from its own events, not from whole 10,000-event records.
    // 11: flag_exposures, each `$feature_flag_called` event's flag and variant (experiments' exposures).
    // 12: distinct_id_events holds only the events that changed a person or group (most events change
    //     neither, and copying each was a quarter of the fold).
    version: 12,
    store: 'readmodels',
    handles: ['EventCaptured', 'EventsCaptured', 'IngestionWarningRaised'],
    invalidates: ['person-properties', 'hash-key-overrides', 'group-properties', 'group-type-mappings'],
    tables: INGESTION_TABLES,
    // Projects share no rows (warnings too are keyed by log position), so each folds in its own lane.
    lane: (recorded: RecordedEvent) => String(projectIdOf(recorded)),
    async apply(recorded: RecordedEvent, db: SqlSession) {
      if (recorded.type === 'EventsCaptured') {
        const absorbed: Absorbed = new Map();
        const reads = await readsOf(recorded, db, absorbed);
        const named = await foldRecord(recorded, db, reads);
        await repointAbsorbed(db, absorbed);
        if (reads) await insertEvents(db, reads.rows);
        await recordIds(recorded, db, named);
        return;
      }
      if (recorded.type === 'EventCaptured') {
        if (await foldCaptured(recorded, recorded.data as CapturedEventData, 0, db, caches.of(db))) await recordIds(recorded, db, [0]);
        return;
      }
      if (recorded.type === 'IngestionWarningRaised') {
        const projectId = projectIdOf(recorded);
        if (projectId === null) return;
        const data = recorded.data as WarningData;
        await recordWarning(db, recorded.position, projectId, data.type, data.source, data.details ?? {}, recorded.metadata.recordedAt);
      }
    },
    /**
     * As `apply` on each in turn, with the storage kept busy: a record's event rows are inserted
     * while the next record is folded. That next record's reads (its uuids already stored, the
     * persons of its distinct ids) are made before the insert is sent, so they cannot see those
     * rows: the uuids the rows carry are added to what the reads found, which is all the insert
     * would have changed for them (nothing else in the fold reads the events table). The records'
     * merges re-point their rows once for the run of records (a chain spread over the ten-thousand-
     * event records of one request is re-pointed once, not once per record), and before anything
     * folded without a record's reads, which reads the rows themselves.
     */
    async applyAll(records: readonly RecordedEvent[], db: SqlSession, stop?: () => Promise<boolean>) {
      /** The previous record's rows, not inserted yet. */
      let held: EventRow[] = [];
      const absorbed: Absorbed = new Map();
      let applied = 0;
      for (const recorded of records) {
        const reads = recorded.type === 'EventsCaptured' ? await readsOf(recorded, db, absorbed) : null;
        if (!reads) {
          await insertEvents(db, held);
          held = [];
          await repointAbsorbed(db, absorbed);
          await this.apply(recorded, db);
        } else {
          const projectId = projectIdOf(recorded);
          for (const row of held) if (row.projectId === projectId) reads.folded.add(row.uuid);
          const inserting = insertEvents(db, held);
          // Awaited below; a fold that throws first must not leave its rejection unhandled.
          inserting.catch(() => undefined);
          const named = await foldRecord(recorded, db, reads);
          await inserting;
          await recordIds(recorded, db, named);
          held = reads.rows;
        }
        applied++;
        if (stop && (await stop())) break;
      }
      await insertEvents(db, held);
      await repointAbsorbed(db, absorbed);
      return applied;
    },
    // One captured event that cannot be folded must not cost the others of its record.
    parts(recorded: RecordedEvent) {
      return recorded.type === 'EventsCaptured' ? (recorded.data as EventsCapturedData).events.length : 0;
    },
    async applyPart(recorded: RecordedEvent, index: number, db: SqlSession) {
      if (await foldCaptured(recorded, (recorded.data as EventsCapturedData).events[index], index, db, caches.of(db))) await recordIds(recorded, db, [index]);
    },
    // The person cache must never outlive the rows it mirrors.
    rolledBack() {
      caches.clear();
    },
    async quarantined(recorded: RecordedEvent, part: number | null, error: string, db: SqlSession) {
      const projectId = projectIdOf(recorded);
      if (projectId === null) return;
      const captured = capturedAt(recorded, part);
      await recordWarning(
        db,
        recorded.position,
        projectId,
        QUARANTINE_WARNING,
        FOLD_WARNING_SOURCE,
        { position: recorded.position, index: part, eventUuid: stringOrNull(captured?.uuid), event: stringOrNull(captured?.event), error },
        recorded.metadata.recordedAt,
      );
    },
  };
}

/** The product's instance. A process folding several stores with it keeps one person cache per store. */
export const ingestionProjection = createIngestionProjection();

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
export { INGESTION_TABLES } from './schema';
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
