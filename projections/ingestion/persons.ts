import type { SqlStore } from '../projection';
import { cachedPerson, forgetPerson, rememberPerson } from './person-cache';
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

/** The current person of a distinct id (through every merge so far), or undefined. */
export function personIdOf(db: SqlStore, projectId: number, distinctId: string): string | undefined {
  const row = db
    .prepare('SELECT person_id FROM person_distinct_ids WHERE project_id = ? AND distinct_id = ?')
    .get(projectId, distinctId) as { person_id: string } | undefined;
  return row?.person_id;
}

/** The person as its row holds it; never mutate the result (it may be shared with the cache). */
export function loadPerson(db: SqlStore, uuid: string): Person | undefined {
  const cached = cachedPerson(db, uuid);
  if (cached) return cached;
  const row = db.prepare('SELECT * FROM persons WHERE uuid = ?').get(uuid) as PersonRow | undefined;
  if (!row) return undefined;
  const person: Person = {
    uuid: row.uuid,
    projectId: row.project_id,
    properties: JSON.parse(row.properties) as Properties,
    createdAt: row.created_at,
    isIdentified: row.is_identified === 1,
    version: row.version,
  };
  rememberPerson(db, person);
  return person;
}

/** What a later row read would return for the person just written as `propertiesJson`. */
const asStored = (person: Person, propertiesJson: string): Person => ({
  uuid: person.uuid,
  projectId: person.projectId,
  properties: JSON.parse(propertiesJson) as Properties,
  createdAt: person.createdAt,
  isIdentified: person.isIdentified === true,
  version: person.version,
});

/** Listing order of distinct ids: by the ordinal of the event that added them, then their slot in it. */
export const distinctIdSeq = (ordinal: number, slot: 0 | 1) => ordinal * 2 + slot;

/**
 * Inserts a person and its distinct ids (the first is the id its uuid was derived from), added by the
 * event at `ordinal`.
 */
export function insertPerson(db: SqlStore, person: Person, distinctIds: readonly [string] | readonly [string, string], ordinal: number): void {
  const propertiesJson = JSON.stringify(person.properties);
  db.prepare(
    'INSERT INTO persons (uuid, project_id, properties, created_at, is_identified, version) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(person.uuid, person.projectId, propertiesJson, person.createdAt, person.isIdentified ? 1 : 0, person.version);
  rememberPerson(db, asStored(person, propertiesJson));
  distinctIds.forEach((distinctId, slot) =>
    addDistinctId(db, person.projectId, distinctId, person.uuid, distinctIdSeq(ordinal, slot === 0 ? 0 : 1)),
  );
}

export function addDistinctId(db: SqlStore, projectId: number, distinctId: string, personId: string, seq: number): void {
  db.prepare('INSERT INTO person_distinct_ids (project_id, distinct_id, person_id, seq) VALUES (?, ?, ?, ?)').run(
    projectId,
    distinctId,
    personId,
    seq,
  );
}

export function savePerson(db: SqlStore, person: Person): void {
  const propertiesJson = JSON.stringify(person.properties);
  const { changes } = db
    .prepare('UPDATE persons SET properties = ?, created_at = ?, is_identified = ?, version = ? WHERE uuid = ?')
    .run(propertiesJson, person.createdAt, person.isIdentified ? 1 : 0, person.version, person.uuid);
  if (changes === 1) rememberPerson(db, asStored(person, propertiesJson));
  else forgetPerson(db, person.uuid);
}

/** Points every distinct id of `fromId` at `toId` and deletes `fromId`: the tail of a merge. */
export function absorbPerson(db: SqlStore, fromId: string, toId: string): void {
  db.prepare('UPDATE person_distinct_ids SET person_id = ? WHERE person_id = ?').run(toId, fromId);
  db.prepare('DELETE FROM persons WHERE uuid = ?').run(fromId);
  forgetPerson(db, fromId);
}
