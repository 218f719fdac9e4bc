import { ingestStream, type EventsCapturedData } from '../../streams';
import { createIngestionProjection, INGESTION_TABLES, ingestionQueries, type GroupApi, type PersonApi } from '../../projections/ingestion';
import { groupRecordKey, namedIds } from '../../projections/ingestion/distinct-id-records';
import { ingestionHistoryQueries } from '../../projections/ingestion/history-queries';
import { DISTINCT_ID_RECORDS, PERSON_MERGES } from '../../projections/ingestion/schema';
import type { EventLog } from '../store/event-log';
import type { ScratchStores } from '../store/read-models';
import type { SqlSession } from '../store/sql';
import { HistoryNotReadyError, type AsOf } from './as-of';
import { foldInScratch } from './scratch-fold';

/**
 * Persons and groups as they stood. They are folded from ingestion records, which hold the events of
 * every person of a project: the read side notes which records name each distinct id and group
 * (`distinct_id_records`) and each merge (`person_merges`). A person's past is then its records up
 * to the point (those naming any id its person holds now: a merge never loses ids), of which only
 * the events naming those ids are folded, by the ingestion projection itself, in a scratch store.
 */
export class PersonTimeTravel {
  private readonly history;
  private ready = false;

  constructor(private readonly deps: { log: EventLog; scratch: ScratchStores; live: SqlSession; hasTable: (name: string) => Promise<boolean> }) {
    this.history = ingestionHistoryQueries(deps.live);
  }

  /** The tables this reads exist once the ingestion projection of this version serves. */
  private async checkReady(): Promise<void> {
    if (this.ready) return;
    if (!(await this.deps.hasTable(DISTINCT_ID_RECORDS.name)) || !(await this.deps.hasTable(PERSON_MERGES.name)))
      throw new HistoryNotReadyError('persons and groups as_of are not available yet: the ingestion read models are being rebuilt for this version (see /_health); retry once it has taken over');
    this.ready = true;
  }

  /** A person by uuid as it stood; a person merged away since comes back as it was before. */
  async person(projectId: number, uuid: string, asOf: AsOf): Promise<PersonApi | undefined> {
    await this.checkReady();
    const survivor = await this.history.survivorOf(projectId, uuid);
    if (survivor === null) return undefined;
    return this.fold(projectId, await this.history.distinctIdsOf(projectId, survivor), asOf, (db) => ingestionQueries(db).person(projectId, uuid));
  }

  /** The person holding a distinct id then (none when it had no person yet). */
  async personOf(projectId: number, distinctId: string, asOf: AsOf): Promise<PersonApi | undefined> {
    await this.checkReady();
    const survivor = await ingestionQueries(this.deps.live).personIdOf(projectId, distinctId);
    if (survivor === null) return undefined;
    return this.fold(projectId, await this.history.distinctIdsOf(projectId, survivor), asOf, async (db) =>
      (await ingestionQueries(db).persons(projectId, { distinctId, limit: 1 })).results[0],
    );
  }

  async group(projectId: number, groupTypeIndex: number, groupKey: string, asOf: AsOf): Promise<GroupApi | undefined> {
    await this.checkReady();
    const type = (await this.history.groupTypeMappings(projectId)).find((m) => m.group_type_index === groupTypeIndex);
    if (!type) return undefined;
    return this.fold(projectId, [groupRecordKey(type.group_type, groupKey)], asOf, (db) => ingestionQueries(db).group(projectId, groupTypeIndex, groupKey));
  }

  private async fold<T>(projectId: number, ids: readonly string[], asOf: AsOf, read: (db: SqlSession) => Promise<T>): Promise<T | undefined> {
    const records = await this.history.recordsNaming(projectId, ids, 'position' in asOf ? asOf : { at: asOf.at });
    if (records.length === 0) return undefined;
    const stream = ingestStream(projectId);
    const events = (await Promise.all(records.map((r) => this.deps.log.readStream(stream, { fromRevision: r.revision, maxCount: 1 })))).flat();
    const wanted = new Set(ids);
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
      events,
      applyEvents: async (ordered, db) => {
        for (const record of ordered) {
          if (record.type !== 'EventsCaptured') {
            await projection.apply(record, db);
            continue;
          }
          // Only the events naming these ids; each applied as the runner applies a record's parts.
          const captured = (record.data as EventsCapturedData).events;
          for (let i = 0; i < captured.length; i++) if (namedIds(captured[i]).some((id) => wanted.has(id))) await projection.applyPart!(record, i, db);
        }
      },
      read,
    }).then((row) => row ?? undefined);
  }
}
