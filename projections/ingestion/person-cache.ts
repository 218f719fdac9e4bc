import type { SqlStore } from '../projection';
import type { Person } from './person';

/**
 * The persons the fold read or wrote lately, per store, so that the person lookup most events need
 * (the write filter must see the person's properties) is not a row read and a parse each time.
 * Entries always equal what a row read would return: every write of the persons table goes through
 * persons.ts, which keeps them in step (caching the parse of the text it stored), and a rolled-back
 * transaction or savepoint drops them all (the projection's `rolledBack`). Cached persons are never
 * mutated: the fold builds new ones.
 */
const MAX_CACHED_PERSONS = 50_000;

let caches = new WeakMap<SqlStore, Map<string, Person>>();
let enabled = true;

function cacheOf(db: SqlStore): Map<string, Person> | undefined {
  if (!enabled) return undefined;
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  return cache;
}

export function cachedPerson(db: SqlStore, uuid: string): Person | undefined {
  return cacheOf(db)?.get(uuid);
}

export function rememberPerson(db: SqlStore, person: Person): void {
  const cache = cacheOf(db);
  if (!cache) return;
  // Oldest first out: Map keeps insertion order, and a rewritten person moves to the end.
  cache.delete(person.uuid);
  if (cache.size >= MAX_CACHED_PERSONS) cache.delete(cache.keys().next().value as string);
  cache.set(person.uuid, person);
}

export function forgetPerson(db: SqlStore, uuid: string): void {
  caches.get(db)?.delete(uuid);
}

export function forgetCachedPersons(db: SqlStore): void {
  caches.get(db)?.clear();
}

/** For tests that compare the fold with the plain one (every person read from its row). */
export function setPersonCacheEnabled(on: boolean): void {
  enabled = on;
  caches = new WeakMap();
}
