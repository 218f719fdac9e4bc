import type { SqlSession } from '../../src/store/sql';
import { survivorOf, type Absorbed } from './absorbed-persons';
import type { Ordinal } from './ordinal';
import { rememberPerson, type PersonCache } from './person-cache';
import type { Properties } from './properties';
import type { Person } from './person';

export type { Person } from './person';

interface PersonRow {
  uuid: string;
  project_id: number;
  properties: string;
  created_at: string;
  is_identified: number;
  version: number;
}

/** Where the fold's person reads and writes go: the store, and the cache mirroring its persons (if any). */
export interface PersonStore {
  db: SqlSession;
  cache: PersonCache | undefined;
  /**
   * The person of each distinct id an EventsCaptured record carries, read once for the record (see
   * readRecord: the events' distinct ids and the ids they merge) and kept equal to the rows by every
   * write of person_distinct_ids below, but for the merges in `absorbed`; undefined when the event's
   * person is read on its own.
   */
  personIds: Map<string, string> | undefined;
  /** With `personIds`: the record's merges whose rows are re-pointed when it is folded (see absorbed-persons.ts). */
  absorbed: Absorbed | undefined;
}

/** The current person of a distinct id (through every merge so far), or undefined. */
export async function personIdOf(db: SqlSession, projectId: number, distinctId: string): Promise<string | undefined> {
  const row = await db.get<{ person_id: string }>(
    'SELECT person_id FROM person_distinct_ids WHERE project_id = ? AND distinct_id = ?',
    projectId,
    distinctId,
  );
  return row?.person_id;
}

/** The current person of a distinct id: through the record's map when there is one, else its row. */
export function currentPersonOf(store: PersonStore, projectId: number, distinctId: string): string | undefined | Promise<string | undefined> {
  if (!store.personIds) return personIdOf(store.db, projectId, distinctId);
  const personId = store.personIds.get(distinctId);
  return personId === undefined ? undefined : survivorOf(store.absorbed, personId);
}

/**
 * The person as its row holds it; never mutate the result (it may be shared with the cache). Callers
 * on the per-event path try `cache.get` first, so a hit costs no promise.
 */
export async function loadPerson({ db, cache }: PersonStore, uuid: string): Promise<Person | undefined> {
  const cached = cache?.get(uuid);
  if (cached) return cached;
  const row = await db.get<PersonRow>(`SELECT ${PERSON_COLUMNS} FROM persons WHERE uuid = ?`, uuid);
  if (!row) return undefined;
  const person = personOfRow(row);
  rememberPerson(cache, person);
  return person;
}

/**
 * Reads into the cache, in one statement, those of `uuids` it does not hold yet: the persons the
 * events of a record are about to look up one by one (where the cache does not outlive a
 * transaction, each lookup would otherwise be a round trip of its own).
 */
export async function prefetchPersons({ db, cache }: Pick<PersonStore, 'db' | 'cache'>, uuids: Iterable<string>): Promise<void> {
  if (!cache) return;
  const missing = [...new Set(uuids)].filter((uuid) => !cache.has(uuid));
  if (!missing.length) return;
  const rows = await db.all<PersonRow>(
    `SELECT ${PERSON_COLUMNS} FROM persons WHERE ${db.dialect.inJsonArray('uuid', 'text')}`,
    JSON.stringify(missing),
  );
  for (const row of rows) rememberPerson(cache, personOfRow(row));
}

const PERSON_COLUMNS = 'uuid, project_id, properties, created_at, is_identified, version';

const personOfRow = (row: PersonRow): Person => ({
  uuid: row.uuid,
  projectId: row.project_id,
  properties: JSON.parse(row.properties) as Properties,
  createdAt: row.created_at,
  isIdentified: row.is_identified === 1,
  version: row.version,
});

/** What a later row read would return for the person just written as `propertiesJson`. */
const asStored = (person: Person, propertiesJson: string): Person => ({
  uuid: person.uuid,
  projectId: person.projectId,
  properties: JSON.parse(propertiesJson) as Properties,
  createdAt: person.createdAt,
  isIdentified: person.isIdentified === true,
  version: person.version,
});

/**
 * Listing order of distinct ids: by the ordinal of the event that added them, then their slot in it
 * (one event may add two); only the index, bounded by the events a record holds, is doubled.
 */
export const distinctIdSeq = (ordinal: Ordinal, slot: 0 | 1): Ordinal => ({ position: ordinal.position, index: ordinal.index * 2 + slot });

/**
 * Inserts a person and its distinct ids (the first is the id its uuid was derived from), added by the
 * event at `ordinal`, which is also the person's place in the persons list (one event creates at
 * most one person).
 */
export async function insertPerson(
  store: PersonStore,
  person: Person,
  distinctIds: readonly [string] | readonly [string, string],
  ordinal: Ordinal,
): Promise<void> {
  const propertiesJson = JSON.stringify(person.properties);
  await store.db.run(
    'INSERT INTO persons (uuid, project_id, properties, created_at, is_identified, version, seq_position, seq_index) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    person.uuid,
    person.projectId,
    propertiesJson,
    person.createdAt,
    person.isIdentified ? 1 : 0,
    person.version,
    ordinal.position,
    ordinal.index,
  );
  rememberPerson(store.cache, asStored(person, propertiesJson));
  await addDistinctId(store, person.projectId, distinctIds[0], person.uuid, distinctIdSeq(ordinal, 0));
  if (distinctIds.length === 2) await addDistinctId(store, person.projectId, distinctIds[1], person.uuid, distinctIdSeq(ordinal, 1));
}

export async function addDistinctId(store: PersonStore, projectId: number, distinctId: string, personId: string, seq: Ordinal): Promise<void> {
  await store.db.run(
    'INSERT INTO person_distinct_ids (project_id, distinct_id, person_id, seq_position, seq_index) VALUES (?, ?, ?, ?, ?)',
    projectId,
    distinctId,
    personId,
    seq.position,
    seq.index,
  );
  store.personIds?.set(distinctId, personId);
}

export async function savePerson(store: PersonStore, person: Person): Promise<void> {
  const propertiesJson = JSON.stringify(person.properties);
  const { changes } = await store.db.run(
    'UPDATE persons SET properties = ?, created_at = ?, is_identified = ?, version = ? WHERE uuid = ?',
    propertiesJson,
    person.createdAt,
    person.isIdentified ? 1 : 0,
    person.version,
    person.uuid,
  );
  if (changes === 1) rememberPerson(store.cache, asStored(person, propertiesJson));
  else store.cache?.delete(person.uuid);
}

/**
 * Points every distinct id of `fromId` at `toId` and deletes `fromId`: the tail of a merge. Inside a
 * record the ids are re-pointed when the record is folded (see absorbed-persons.ts).
 */
export async function absorbPerson(store: PersonStore, fromId: string, toId: string, projectId: number, position: number): Promise<void> {
  await store.db.run('INSERT INTO person_merges (project_id, from_id, into_id, position) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', projectId, fromId, toId, position);
  if (store.absorbed) store.absorbed.set(fromId, toId);
  else await store.db.run('UPDATE person_distinct_ids SET person_id = ? WHERE person_id = ?', toId, fromId);
  await store.db.run('DELETE FROM persons WHERE uuid = ?', fromId);
  store.cache?.delete(fromId);
}
