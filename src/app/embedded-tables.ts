import type { ReadModelProjection, StoreName } from '../store/read-model-projection';
import { sqliteTableDdl } from '../adapters/sqlite/read-models';
import { CHECKPOINTS_SCHEMA } from '../runtime/projection-runner';
import type { SqliteDatabase } from '../adapters/sqlite/open';

/**
 * Creates every projection's tables on the embedded stores at once, before the runner binds them
 * (which it does asynchronously): code that opens an embedded runtime in its own thread reads the
 * read models straight away. Idempotent; the runner's own set-up follows and may rebuild.
 */
export function createEmbeddedTables(projections: readonly ReadModelProjection[], stores: Record<StoreName, SqliteDatabase>): void {
  for (const db of new Set(Object.values(stores))) for (const statement of sqliteTableDdl(CHECKPOINTS_SCHEMA)) db.exec(statement);
  for (const p of projections) {
    // Tables of another version keep serving until the new one, built beside them, takes over.
    const stored = stores[p.store].prepare('SELECT version FROM projection_checkpoints WHERE name = ?').get(p.name) as { version: number } | undefined;
    if (stored && stored.version !== p.version) continue;
    for (const table of p.tables) for (const statement of sqliteTableDdl(table)) stores[p.store].exec(statement);
  }
}
