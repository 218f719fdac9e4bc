import type { SqlSession } from '../../src/store/sql';
import type { Person } from './person';

/**
 * The persons the fold read or wrote lately, so that the person lookup most events need (the write
 * filter must see the person's properties) is not a row read and a parse each time. Entries always
 * equal what a row read would return: every write of the persons table goes through persons.ts,
 * which keeps them in step (caching the parse of the text it stored), and a rolled-back transaction
 * or savepoint drops them all (the projection's `rolledBack`). Cached persons are never mutated:
 * the fold builds new ones.
 */
export type PersonCache = Map<string, Person>;

const MAX_CACHED_PERSONS = 50_000;

let enabled = true;
/** Bumped when the cache is switched on or off: writes made while it was off never reached it. */
let generation = 0;

/**
 * One projection instance's caches, one per store it folds into. A store is told apart by its
 * session's statement functions: the SQLite adapter hands every transaction the store's own (so the
 * cache outlives a batch, which is where it pays), the PostgreSQL adapter new ones per transaction
 * (so there a cache lives for one transaction, and another process folding between two batches
 * cannot leave it stale). Two stores never share one, even when a process folds both with the same
 * projection instance.
 */
export class PersonCaches {
  private byStore = new WeakMap<object, PersonCache>();
  private generation = generation;

  of(db: SqlSession): PersonCache | undefined {
    if (!enabled) return undefined;
    if (this.generation !== generation) this.clear();
    let cache = this.byStore.get(db.get);
    if (!cache) this.byStore.set(db.get, (cache = new Map()));
    return cache;
  }

  /** A rollback does not say which store it was: every cache goes. */
  clear(): void {
    this.byStore = new WeakMap();
    this.generation = generation;
  }
}

export function rememberPerson(cache: PersonCache | undefined, person: Person): void {
  if (!cache) return;
  // Oldest first out, by when a person entered the cache (Map keeps insertion order). A rewritten
  // person is replaced where it stands: deleting and re-adding a key, to move it to the end, made
  // V8's map rebuild itself again and again, and a hub rewritten by every merge of a long record
  // spent most of the fold there. The order only decides what is read again from its row.
  if (!cache.has(person.uuid) && cache.size >= MAX_CACHED_PERSONS) cache.delete(oldestOf(cache));
  cache.set(person.uuid, person);
}

/**
 * Where each full cache's eviction stands. A fresh `keys()` iterator steps over every entry deleted
 * since the map last compacted itself, which are the evicted ones, at its front: with many persons,
 * each eviction then cost about as many steps as the cache holds. A live iterator passes each once
 * (it skips entries deleted ahead of it and sees those added since), so it still yields the oldest
 * entry.
 */
const evictionCursors = new WeakMap<PersonCache, Iterator<string>>();

function oldestOf(cache: PersonCache): string {
  let step = evictionCursors.get(cache)?.next();
  if (!step || step.done) {
    const cursor = cache.keys();
    evictionCursors.set(cache, cursor);
    step = cursor.next();
  }
  return step.value as string;
}

/** For tests that compare the fold with the plain one (every person read from its row). */
export function setPersonCacheEnabled(on: boolean): void {
  enabled = on;
  generation++;
}
