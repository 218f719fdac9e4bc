import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../open';

/** Entries kept per run; beyond this the cache starts over (memory stays bounded on huge runs). */
const MAX_ENTRIES = 100_000;

/**
 * Person properties (JSON text) by person id, for one run. Events of a run share few persons,
 * so one lookup per person replaces a join per event (the join was a quarter of the read cost),
 * and the persons a batch needs are fetched in one statement. It uses its own connection: the
 * run's row iterator keeps the other one busy.
 */
export class PersonProperties {
  private readonly cache = new Map<string, string | null>();
  private readonly many: Statement<[string], { uuid: string; properties: string }>;
  private readonly one: Statement<[string], string>;

  constructor(db: SqliteDatabase) {
    this.many = db.prepare<[string], { uuid: string; properties: string }>(
      'SELECT uuid, properties FROM persons WHERE uuid IN (SELECT value FROM json_each(?))',
    );
    this.one = db.prepare<[string], string>('SELECT properties FROM persons WHERE uuid = ?').pluck();
  }

  /** Loads the persons of `personIds` not cached yet (ids without a person are cached as null). */
  prefetch(personIds: Iterable<string | null>): void {
    const missing = new Set<string>();
    for (const id of personIds) if (id !== null && !this.cache.has(id)) missing.add(id);
    if (missing.size === 0) return;
    if (this.cache.size + missing.size > MAX_ENTRIES) this.cache.clear();
    for (const id of missing) this.cache.set(id, null);
    for (const row of this.many.all(JSON.stringify([...missing]))) this.cache.set(row.uuid, row.properties);
  }

  /** After prefetch: the cached value; an id never prefetched is looked up on its own. */
  get(personId: string | null): string | null {
    if (personId === null) return null;
    let value = this.cache.get(personId);
    if (value === undefined) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(personId, (value = this.one.get(personId) ?? null));
    }
    return value;
  }
}
