import { ingestStream, type CapturedEventData, type RecordedEvent } from '../../streams';
import { createIngestionProjection, INGESTION_TABLES, ingestionQueries, type GroupApi, type PersonApi } from '../../projections/ingestion';
import { groupRecordKey, personIdsNamed } from '../../projections/ingestion/distinct-id-events';
import { ingestionHistoryQueries, type RecordBound } from '../../projections/ingestion/history-queries';
import { DISTINCT_ID_EVENTS, PERSON_MERGES } from '../../projections/ingestion/schema';
import type { ScratchStores } from '../store/read-models';
import type { SqlSession } from '../store/sql';
import { HistoryNotReadyError, type AsOf } from './as-of';
import { foldInScratch } from './scratch-fold';

/**
 * Persons and groups as they stood. They are folded from the captured events naming them, which the
 * read side keeps by distinct id and group (`distinct_id_events`, with each event's place in the log),
 * and each merge (`person_merges`). A person's past is then the events naming any id its person holds
 * now (a merge never loses ids) up to the point, and of every id a merge named with one of those (a
 * refused merge leaves the other person apart, and whether a merge is refused depends on that
 * person's own events, so the fold takes the ids merges connect, transitively), folded by the
 * ingestion projection itself, part by part as the runner applies a record's parts, in a scratch
 * store: its cost follows those persons' events, never the size of the records holding them (10,000
 * events of as many persons each).
 */
export class PersonTimeTravel {
  private readonly history;
  private ready = false;

  constructor(private readonly deps: { scratch: ScratchStores; live: SqlSession; hasTable: (name: string) => Promise<boolean> }) {
    this.history = ingestionHistoryQueries(deps.live);
  }

  /** The tables this reads exist once the ingestion projection of this version serves. */
  private async checkReady(): Promise<void> {
    if (this.ready) return;
    if (!(await this.deps.hasTable(DISTINCT_ID_EVENTS.name)) || !(await this.deps.hasTable(PERSON_MERGES.name)))
      throw new HistoryNotReadyError('persons and groups as_of are not available yet: the ingestion read models are being rebuilt for this version (see /_health); retry once it has taken over');
    this.ready = true;
  }

  /** A person by uuid as it stood; a person merged away since comes back as it was before. */
  async person(projectId: number, uuid: string, asOf: AsOf): Promise<PersonApi | undefined> {
    await this.checkReady();
    const survivor = await this.history.survivorOf(projectId, uuid);
    if (survivor === null) return undefined;
    return this.fold(projectId, await this.history.distinctIdsOf(projectId, survivor), true, asOf, (db) => ingestionQueries(db).person(projectId, uuid));
  }

  /** The person holding a distinct id then (none when it had no person yet). */
  async personOf(projectId: number, distinctId: string, asOf: AsOf): Promise<PersonApi | undefined> {
    await this.checkReady();
    const survivor = await ingestionQueries(this.deps.live).personIdOf(projectId, distinctId);
    if (survivor === null) return undefined;
    return this.fold(projectId, await this.history.distinctIdsOf(projectId, survivor), true, asOf, async (db) =>
      (await ingestionQueries(db).persons(projectId, { distinctId, limit: 1 })).results[0],
    );
  }

  async group(projectId: number, groupTypeIndex: number, groupKey: string, asOf: AsOf): Promise<GroupApi | undefined> {
    await this.checkReady();
    const type = (await this.history.groupTypeMappings(projectId)).find((m) => m.group_type_index === groupTypeIndex);
    if (!type) return undefined;
    return this.fold(projectId, [groupRecordKey(type.group_type, groupKey)], false, asOf, (db) => ingestionQueries(db).group(projectId, groupTypeIndex, groupKey));
  }

  /** `merged`: also the ids merges named with these (a person's); a group's events alone decide it. */
  private async fold<T>(projectId: number, ids: readonly string[], merged: boolean, asOf: AsOf, read: (db: SqlSession) => Promise<T>): Promise<T | undefined> {
    const named = await this.eventsOf(projectId, ids, merged, 'position' in asOf ? asOf : { at: asOf.at });
    if (named.length === 0) return undefined;
    const records = recordsOf(projectId, named);
    const mappings = await this.history.groupTypeMappings(projectId);
    // A fresh instance: its person cache is this fold's alone.
    const projection = createIngestionProjection();
    return foldInScratch(this.deps.scratch, {
      projections: [projection],
      tables: INGESTION_TABLES,
      // Group type indexes are assigned across the project in log order: the live ones hold.
      prepare: async (db) => {
        for (const m of mappings) await db.run('INSERT INTO group_type_mappings (project_id, group_type, group_type_index) VALUES (?, ?, ?)', projectId, m.group_type, m.group_type_index);
      },
      events: records.map((r) => r.record),
      applyEvents: async (ordered, db) => {
        const parts = new Map(records.map((r) => [r.record, r.parts]));
        for (const record of ordered) for (const part of parts.get(record)!) await projection.applyPart!(record, part, db);
      },
      read,
    }).then((row) => row ?? undefined);
  }

  /** The events naming `ids` up to the bound, and with `merged` those of the ids merges connect them to; in log order. */
  private async eventsOf(projectId: number, ids: readonly string[], merged: boolean, bound: RecordBound): Promise<NamedEvent[]> {
    const known = new Set(ids);
    const found = new Map<string, NamedEvent>();
    for (let frontier = [...ids]; frontier.length > 0; ) {
      const next: string[] = [];
      for (const row of await this.history.eventsNaming(projectId, frontier, bound)) {
        const key = `${row.position}:${row.part}`;
        if (found.has(key)) continue;
        const event = JSON.parse(row.event) as CapturedEventData;
        found.set(key, { position: row.position, revision: row.revision, part: row.part, recordedAt: row.recorded_at, event });
        if (merged)
          for (const id of personIdsNamed(event))
            if (!known.has(id)) {
              known.add(id);
              next.push(id);
            }
      }
      frontier = next;
    }
    return [...found.values()].sort((a, b) => a.position - b.position || a.part - b.part);
  }
}

interface NamedEvent {
  position: number;
  revision: number;
  part: number;
  recordedAt: string;
  event: CapturedEventData;
}

/**
 * The records the events came from, holding only those events (at their indexes), with what the
 * ingestion fold reads of a record: its stream, position, revision, project and recorded time. The
 * rest of the envelope is not kept by the read side and no fold of a part reads it.
 */
function recordsOf(projectId: number, named: readonly NamedEvent[]): { record: RecordedEvent; parts: number[] }[] {
  const out: { record: RecordedEvent; parts: number[] }[] = [];
  const streamId = ingestStream(projectId);
  for (const row of named) {
    let last = out[out.length - 1];
    if (!last || last.record.position !== row.position) {
      const events: CapturedEventData[] = [];
      last = {
        record: {
          position: row.position,
          streamId,
          revision: row.revision,
          type: 'EventsCaptured',
          schemaVersion: 1,
          data: { events },
          metadata: { eventId: '', recordedAt: row.recordedAt, projectId, actor: { type: 'system' }, causationId: null, correlationId: null },
        },
        parts: [],
      };
      out.push(last);
    }
    (last.record.data as { events: CapturedEventData[] }).events[row.part] = row.event;
    last.parts.push(row.part);
  }
  return out;
}
