import type { CapturedEventData, EventsCapturedData, RecordedEvent } from '../../streams';
import type { AnalyticsEventRow, PersonMappingRow, StoredEventColumns } from '../../src/store/analytics';
import type { SqlSession } from '../../src/store/sql';
import { personIdsNamed } from '../ingestion/distinct-id-events';

/**
 * What the ingestion fold decided for a run of log records, read back from the read models it
 * wrote: the analytics store outside them (ClickHouse) is fed these, so the person an event counts
 * for and every merge are decided in one place (the fold), never a second time.
 *
 * - Events: the fold's own rows, by (project, uuid) — enriched properties, canonical times, group
 *   columns and the person id at ingestion exactly as the embedded store holds them. Events the fold
 *   dropped (quarantined) have no row and are skipped; a uuid sent twice reads as its first copy.
 * - Persons: every distinct id of every person an event of the run names (its distinct id, and the
 *   id a merge folds in) with its person now. A merge names both ids, and after it both point at the
 *   survivor, so all ids re-pointed by it are among the survivor's. The rows carry `version` = the
 *   run's last position: a later run touching the same id outranks it.
 *
 * Call it once the fold has passed the run's last position: the rows are read as the fold left them
 * then (or later, which later runs' higher versions settle the same way).
 */
export async function foldOutputs(db: SqlSession, records: readonly RecordedEvent[], version: number): Promise<{ events: AnalyticsEventRow[]; persons: PersonMappingRow[] }> {
  const byProject = new Map<number, { uuids: string[]; ids: Set<string> }>();
  for (const record of records) {
    const projectId = record.metadata.projectId;
    if (projectId === null) continue;
    const captured = capturedIn(record);
    if (captured.length === 0) continue;
    let named = byProject.get(projectId);
    if (!named) byProject.set(projectId, (named = { uuids: [], ids: new Set() }));
    for (const event of captured) {
      named.uuids.push(event.uuid);
      for (const id of personIdsNamed(event)) named.ids.add(id);
    }
  }
  const events: AnalyticsEventRow[] = [];
  const persons: PersonMappingRow[] = [];
  for (const [projectId, { uuids, ids }] of byProject) {
    events.push(...(await storedEvents(db, projectId, uuids)));
    persons.push(...(await personsOf(db, projectId, [...ids], version)));
  }
  return { events, persons };
}

function capturedIn(record: RecordedEvent): readonly CapturedEventData[] {
  if (record.type === 'EventsCaptured') return (record.data as EventsCapturedData).events;
  if (record.type === 'EventCaptured') return [record.data as CapturedEventData];
  return [];
}


/** The fold's rows of these uuids, in the order given (log order); each uuid once. */
async function storedEvents(db: SqlSession, projectId: number, uuids: readonly string[]): Promise<AnalyticsEventRow[]> {
  const rows = await db.all<StoredEventColumns>(
    `SELECT uuid, project_id, event, distinct_id, person_id, timestamp, received_at, properties, elements_chain, group_0, group_1, group_2, group_3, group_4, historical_migration
     FROM events WHERE project_id = ? AND ${db.dialect.inJsonArray('uuid', 'text')}`,
    projectId,
    JSON.stringify([...new Set(uuids)]),
  );
  const byUuid = new Map(rows.map((row) => [row.uuid, row]));
  const out: AnalyticsEventRow[] = [];
  for (const uuid of new Set(uuids)) {
    const row = byUuid.get(uuid);
    if (!row) continue;
    out.push({
      uuid: row.uuid,
      projectId,
      event: row.event,
      distinctId: row.distinct_id,
      personId: row.person_id,
      timestamp: row.timestamp,
      receivedAt: row.received_at,
      propertiesJson: row.properties,
      elementsChain: row.elements_chain,
      groups: [row.group_0, row.group_1, row.group_2, row.group_3, row.group_4],
      historicalMigration: Number(row.historical_migration) === 1,
    });
  }
  return out;
}

/** Every distinct id of the persons these ids belong to now, with that person. */
async function personsOf(db: SqlSession, projectId: number, ids: readonly string[], version: number): Promise<PersonMappingRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.all<{ distinct_id: string; person_id: string }>(
    `SELECT distinct_id, person_id FROM person_distinct_ids WHERE project_id = ? AND person_id IN
       (SELECT person_id FROM person_distinct_ids WHERE project_id = ? AND ${db.dialect.inJsonArray('distinct_id', 'text')})`,
    projectId,
    projectId,
    JSON.stringify(ids),
  );
  return rows.map((row) => ({ projectId, distinctId: row.distinct_id, personId: row.person_id, version }));
}
