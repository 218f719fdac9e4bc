import type { CapturedEventData, RecordedEvent } from '../../streams';
import type { SqlSession } from '../../src/store/sql';
import { survivorOf, type Absorbed } from './absorbed-persons';
import type { FoldContext } from './context';
import { warn } from './context';
import { canonicalIso, exposureOf, insertEvents, lookupBeforeFold, type EventRow } from './events-table';
import { foldGroupIdentify, groupColumnsOf, isGroupIdentify, type GroupColumns } from './groups';
import { personUuid } from './ids';
import { personUpdatesOf } from './lifted-properties';
import { mergeSourceOf } from './merge';
import { foldPerson } from './person-state';
import { prefetchPersons } from './persons';
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

const NO_GROUPS: GroupColumns = [null, null, null, null, null];

/**
 * What the events of one EventsCaptured record share: what each needs to know before it is folded,
 * read for the whole record in two statements instead of one per event, and the event rows, written
 * together once the record is folded (nothing in the fold reads the events table but the dedup
 * check, which `folded` answers).
 */
export interface RecordReads {
  /** The record's uuids already in the project's events, then those of the record folded so far. */
  folded: Set<string>;
  /**
   * The person of each distinct id the record's events carry or merge (absent: none); persons.ts
   * keeps it current, but for the persons merged away since, which `absorbed` links to their survivors.
   */
  personIds: Map<string, string>;
  /** Merges not written to the distinct-id rows yet, this record's and its predecessors' (repointAbsorbed). */
  absorbed: Absorbed;
  /** Rows of the record's events, in the record's order, for insertEvents. */
  rows: EventRow[];
}

/** null when a uuid is not a string: such a record is read event by event, as a single event is. */
export async function readRecord(
  db: SqlSession,
  cache: PersonCache | undefined,
  projectId: number,
  events: readonly CapturedEventData[],
  absorbed: Absorbed,
): Promise<RecordReads | null> {
  // Stryker disable next-line ArrayDeclaration: equivalent, an extra uuid can only answer a row of that uuid, which no event of the record has
  const uuids: string[] = [];
  for (const e of events) {
    if (typeof e.uuid !== 'string') return null;
    uuids.push(e.uuid);
  }
  const distinctIds = new Set<string>();
  for (const e of events) {
    distinctIds.add(String(e.distinct_id));
    // A superset of the ids the fold merges (a personless event merges nothing): a merge then
    // finds the other id's person in the map, not in a row read of its own.
    const source = mergeSourceOf(e.event, asObject(e.properties) ?? {});
    // Stryker disable next-line ConditionalExpression: equivalent, a null in the list of ids matches no row
    if (source !== null) distinctIds.add(source);
  }
  const { dialect } = db;
  // Both asked before either is awaited: where the session pipelines, one round trip for the two.
  const [folded, persons] = await Promise.all([
    db.all<{ uuid: string }>(`SELECT uuid FROM events WHERE project_id = ? AND ${dialect.inJsonArray('uuid', 'text')}`, projectId, JSON.stringify(uuids)),
    db.all<{ distinct_id: string; person_id: string }>(
      `SELECT distinct_id, person_id FROM person_distinct_ids WHERE project_id = ? AND ${dialect.inJsonArray('distinct_id', 'text')}`,
      projectId,
      JSON.stringify([...distinctIds]),
    ),
  ]);
  // Stryker disable next-line ObjectLiteral,ArrowFunction: equivalent, prefetching fills the person cache; a person not in it is read when needed
  await prefetchPersons({ db, cache }, persons.map((r) => survivorOf(absorbed, r.person_id)));
  return {
    folded: new Set(folded.map((r) => r.uuid)),
    personIds: new Map(persons.map((r) => [r.distinct_id, r.person_id])),
    absorbed,
    rows: [],
  };
}

function recordPersonOf(reads: RecordReads, distinctId: string): string | undefined {
  const personId = reads.personIds.get(distinctId);
  // Stryker disable next-line ConditionalExpression: equivalent, survivorOf of no person finds no link and answers it as given
  return personId === undefined ? undefined : survivorOf(reads.absorbed, personId);
}

/**
 * Folds one captured event (an EventCaptured record, or the `index`th event of an EventsCaptured):
 * person and group effects first, then its row in the events table. `cache` mirrors the persons of
 * the store behind `db`; with its record's `reads`, the event reads nothing itself and its row joins
 * the record's (the caller inserts them), and the most common event (no person or group effect to
 * write) settles without a promise. Answers whether the event belongs in the history of the ids it
 * names (distinct_id_events): an event that changed no person and no group is left out, since
 * folding a person's past without it gives the same person.
 */
export function foldCaptured(
  recorded: RecordedEvent,
  data: CapturedEventData,
  index: number,
  db: SqlSession,
  cache: PersonCache | undefined,
  reads: RecordReads | null = null,
): boolean | Promise<boolean> {
  const projectId = projectIdOf(recorded);
  // Stryker disable next-line BooleanLiteral: equivalent, an event of no project is copied under no project (recordIds skips it)
  if (projectId === null) return false;
  const distinctId = String(data.distinct_id);
  // Stryker disable next-line ConditionalExpression: equivalent, event by event is the record's slow path (the determinism tests fold both ways alike)
  if (!reads) return foldAlone(recorded, data, index, db, cache, projectId, distinctId);
  // A re-sent event counts once, also when the record itself carries it twice.
  if (reads.folded.has(data.uuid)) return false;
  reads.folded.add(data.uuid);
  const ctx = contextOf(recorded, data, index, db, cache, reads, projectId, distinctId, recordPersonOf(reads, distinctId));
  // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent, the common event's shortcut; foldEffects writes the same person and row
  if (!ctx.personless && !isGroupIdentify(ctx.event) && !asObject(ctx.properties.$groups)) {
    const settled = foldPerson(ctx);
    if (typeof settled === 'string') {
      reads.rows.push(eventRow(ctx, data, settled, NO_GROUPS));
      return !ctx.personUnchanged;
    }
    return settled.then((personId) => {
      reads.rows.push(eventRow(ctx, data, personId, NO_GROUPS));
      return !ctx.personUnchanged;
    });
  }
  return foldEffects(ctx, data, reads);
}

async function foldAlone(
  recorded: RecordedEvent,
  data: CapturedEventData,
  index: number,
  db: SqlSession,
  cache: PersonCache | undefined,
  projectId: number,
  distinctId: string,
): Promise<boolean> {
  const before = (await lookupBeforeFold(db, projectId, data.uuid, distinctId))!;
  if (before.duplicate === 1) return false;
  return foldEffects(contextOf(recorded, data, index, db, cache, null, projectId, distinctId, before.person_id ?? undefined), data, null);
}

type CapturedContext = FoldContext & { personless: boolean };

function contextOf(
  recorded: RecordedEvent,
  data: CapturedEventData,
  index: number,
  db: SqlSession,
  cache: PersonCache | undefined,
  reads: RecordReads | null,
  projectId: number,
  distinctId: string,
  personIdBefore: string | undefined,
): CapturedContext {
  const recordedAt = recorded.metadata.recordedAt;
  const original = asObject(data.properties) ?? {};
  const personless = original.$process_person_profile === false;
  // PostHog strips person operations from personless events before anything else sees them.
  const properties = personless ? withoutPersonOperations(original) : original;
  return {
    db,
    cache,
    personIds: reads?.personIds,
    absorbed: reads?.absorbed,
    ordinal: { position: recorded.position, index },
    projectId,
    uuid: data.uuid,
    event: data.event,
    distinctId,
    properties,
    personless,
    // A personless event lifts nothing onto a person either.
    personUpdates: personless ? null : personUpdatesOf(data.event, properties),
    timestamp: canonicalIso(data.timestamp, recordedAt),
    recordedAt,
    personIdBefore,
  };
}

/** Every effect of the event, then its row: inserted now, or added to its record's; whether it changed a person or group. */
async function foldEffects(ctx: CapturedContext, data: CapturedEventData, reads: RecordReads | null): Promise<boolean> {
  let personId: string;
  if (ctx.personless) {
    if (PERSON_PROFILE_EVENTS.has(ctx.event)) {
      await warn(ctx, 'invalid_event_when_process_person_profile_is_false', {
        eventUuid: ctx.uuid,
        event: ctx.event,
        distinctId: ctx.distinctId,
      });
    }
    // As PostHog: an existing person's id if the distinct id has one, else the deterministic id the
    // person would get if it were ever created, so later person events line up with these.
    personId = ctx.personIdBefore ?? personUuid(ctx.projectId, ctx.distinctId);
  } else {
    const settled = foldPerson(ctx);
    // Stryker disable next-line StringLiteral,ConditionalExpression: equivalent, awaiting a string answers the string
    personId = typeof settled === 'string' ? settled : await settled;
    if (isGroupIdentify(ctx.event)) await foldGroupIdentify(ctx);
  }
  const groups = asObject(ctx.properties.$groups);
  const row = eventRow(ctx, data, personId, groups ? await groupColumnsOf(ctx, groups) : NO_GROUPS);
  // Stryker disable next-line ConditionalExpression: equivalent, the row is then written at once instead of with its record's: the same row, and the record's dedup set already holds its uuid
  if (reads) reads.rows.push(row);
  else await insertEvents(ctx.db, [row]);
  if (isGroupIdentify(ctx.event)) return true;
  // A personless event changes no person, nor merges (PostHog refuses it with a warning).
  if (ctx.personless) return false;
  return !ctx.personUnchanged;
}

function eventRow(ctx: CapturedContext, data: CapturedEventData, personId: string, groups: GroupColumns): EventRow {
  const chain = ctx.properties.$elements_chain;
  return {
    uuid: data.uuid,
    projectId: ctx.projectId,
    event: ctx.event,
    distinctId: ctx.distinctId,
    personId,
    timestamp: ctx.timestamp,
    receivedAt: canonicalIso(data.received_at, ctx.recordedAt),
    propertiesJson: JSON.stringify(ctx.properties),
    elementsChain: typeof chain === 'string' ? chain : '',
    groups,
    historicalMigration: data.historical_migration === true,
    exposure: exposureOf(ctx.event, ctx.properties),
  };
}
