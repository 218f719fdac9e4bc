import type { SqlSession } from '../../../store/sql';

/**
 * Person properties (JSON text) of the given person ids, ids without a person left out. ClickHouse
 * holds only the distinct id → person mapping; the persons themselves stay in the read models.
 */
export type PersonPropertiesLookup = (personIds: readonly string[]) => Promise<Map<string, string>>;

/** Ids per statement: one JSON array parameter, kept well under any statement size limit. */
const CHUNK = 5000;

/** The lookup over the read models' persons table (SQLite or PostgreSQL, through the SQL port). */
export function readModelPersons(session: SqlSession): PersonPropertiesLookup {
  return async (personIds) => {
    const found = new Map<string, string>();
    for (let i = 0; i < personIds.length; i += CHUNK) {
      const rows = await session.all<{ uuid: string; properties: string }>(
        `SELECT uuid, properties FROM persons WHERE ${session.dialect.inJsonArray('uuid', 'text')}`,
        JSON.stringify(personIds.slice(i, i + CHUNK)),
      );
      for (const row of rows) found.set(row.uuid, row.properties);
    }
    return found;
  };
}

/** Entries kept per run; beyond this the cache starts over (memory stays bounded on huge runs). */
const MAX_ENTRIES = 100_000;

/** One run's person properties, fetched page by page for the persons a page names (as the SQLite source's cache). */
export class RunPersons {
  private readonly cache = new Map<string, string | null>();

  constructor(
    private readonly lookup: PersonPropertiesLookup,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** Every person of `personIds` is cached afterwards (the cache may pass its bound by these). */
  async prefetch(personIds: Iterable<string | null>): Promise<void> {
    // Started over before the ids are looked at: cleared after, the ids found cached would be lost
    // and read as persons without properties.
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    const missing = new Set<string>();
    for (const id of personIds) if (id !== null && !this.cache.has(id)) missing.add(id);
    if (missing.size === 0) return;
    const found = await this.lookup([...missing]);
    for (const id of missing) this.cache.set(id, found.get(id) ?? null);
  }

  /** After prefetch: the cached value (null for no person). */
  get(personId: string | null): string | null {
    return personId === null ? null : (this.cache.get(personId) ?? null);
  }
}
