import { MAX_EVENTS_PER_RECORD, type CapturedEventData, type RecordedEvent } from '../../streams';
import type { SqlSession } from '../sql';
import type { FoldContext } from './context';
import { warn } from './context';
import { canonicalIso, insertEvent, lookupBeforeFold } from './events-table';
import { foldGroupIdentify, groupColumnsOf, isGroupIdentify, type GroupColumns } from './groups';
import { personUuid } from './ids';
import { personUpdatesOf } from './lifted-properties';
import { foldPerson } from './person-state';
import type { PersonCache } from './person-cache';
import { asObject, withoutPersonOperations } from './properties';

/** Events whose only purpose is a person or group effect. */
const PERSON_PROFILE_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify', '$group_identify']);

/** The project of an ingested event: its metadata, else the `ingest-<id>` stream it was appended to. */
export function projectIdOf(recorded: RecordedEvent): number | null {
  if (recorded.metadata.projectId !== null) return recorded.metadata.projectId;
  const match = /^ingest-(\d+)$/.exec(recorded.streamId);
  return match ? Number(match[1]) : null;
}

/**
 * An event's place in the log: its record's position, then its index in that record (an
 * EventsCaptured carries many). Safe integers up to positions of ~9e11. Stored in persons.seq (the
 * event that created the person) and, doubled, in person_distinct_ids.seq.
 */
export const ordinalOf = (position: number, index: number) => position * MAX_EVENTS_PER_RECORD + index;

const NO_GROUPS: GroupColumns = [null, null, null, null, null];

/**
 * Folds one captured event (an EventCaptured record, or the `index`th event of an EventsCaptured):
 * person and group effects first, then its row in the events table. `cache` mirrors the persons of
 * the store behind `db`.
 */
export async function foldCaptured(
  recorded: RecordedEvent,
  data: CapturedEventData,
  index: number,
  db: SqlSession,
  cache: PersonCache | undefined,
): Promise<void> {
  const projectId = projectIdOf(recorded);
  if (projectId === null) return;
  const distinctId = String(data.distinct_id);
  const before = (await lookupBeforeFold(db, projectId, data.uuid, distinctId))!;
  if (before.duplicate === 1) return;
  const personIdBefore = before.person_id ?? undefined;

  const recordedAt = recorded.metadata.recordedAt;
  const original = asObject(data.properties) ?? {};
  const personless = original.$process_person_profile === false;
  // PostHog strips person operations from personless events before anything else sees them.
  const properties = personless ? withoutPersonOperations(original) : original;
  const ctx: FoldContext = {
    db,
    cache,
    ordinal: ordinalOf(recorded.position, index),
    projectId,
    uuid: data.uuid,
    event: data.event,
    distinctId,
    properties,
    // A personless event lifts nothing onto a person either.
    personUpdates: personless ? null : personUpdatesOf(data.event, properties),
    timestamp: canonicalIso(data.timestamp, recordedAt),
    recordedAt,
    personIdBefore,
  };

  let personId: string;
  if (personless) {
    if (PERSON_PROFILE_EVENTS.has(ctx.event)) {
      await warn(ctx, 'invalid_event_when_process_person_profile_is_false', {
        eventUuid: ctx.uuid,
        event: ctx.event,
        distinctId: ctx.distinctId,
      });
    }
    // As PostHog: an existing person's id if the distinct id has one, else the deterministic id the
    // person would get if it were ever created, so later person events line up with these.
    personId = personIdBefore ?? personUuid(projectId, distinctId);
  } else {
    const settled = foldPerson(ctx);
    personId = typeof settled === 'string' ? settled : await settled;
    if (isGroupIdentify(ctx.event)) await foldGroupIdentify(ctx);
  }

  const chain = ctx.properties.$elements_chain;
  const groups = asObject(ctx.properties.$groups);
  await insertEvent(db, {
    uuid: data.uuid,
    projectId,
    event: ctx.event,
    distinctId: ctx.distinctId,
    personId,
    timestamp: ctx.timestamp,
    receivedAt: canonicalIso(data.received_at, recordedAt),
    propertiesJson: JSON.stringify(ctx.properties),
    elementsChain: typeof chain === 'string' ? chain : '',
    groups: groups ? await groupColumnsOf(ctx, groups) : NO_GROUPS,
    historicalMigration: data.historical_migration === true,
  });
}
