import { isPortable, type AnyProjection, type ReadModelProjection, type StoreName } from '../../projections';
import { sqliteTableDdl } from '../adapters/sqlite/read-models';
import { cachedStore } from '../runtime/cached-store';
import { CHECKPOINTS_SCHEMA } from '../runtime/projection-runner';
import type { SqliteDatabase } from '../store/sqlite/open';

/**
 * Runs a projection written before the read-model port on the embedded store: its synchronous SQL
 * goes to the same SQLite connection the port's transaction is open on, so it commits (or rolls back)
 * with the batch and the checkpoint. Portable projections pass through.
 */
export function onEmbeddedStores(projections: readonly AnyProjection[], stores: Record<StoreName, SqliteDatabase>): ReadModelProjection[] {
  return projections.map((p) => {
    if (isPortable(p)) return p;
    const db = cachedStore(stores[p.store]);
    return {
      portable: true,
      name: p.name,
      version: p.version,
      store: p.store,
      handles: p.handles,
      tables: p.tables,
      setup: async () => p.setup(db),
      apply: async (event) => p.apply(event, db),
      parts: p.parts && ((event) => p.parts!(event)),
      applyPart: p.applyPart && (async (event, index) => p.applyPart!(event, index, db)),
      rolledBack: () => p.rolledBack?.(db),
      quarantined: p.quarantined && (async (event, part, error) => p.quarantined!(event, part, error, db)),
    };
  });
}

/** Whether every projection runs on any read-model store (else only the embedded one will do). */
export const allPortable = (projections: readonly AnyProjection[]) => projections.every(isPortable);

/**
 * Creates every projection's tables on the embedded stores at once, before the runner binds them
 * (which it does asynchronously): code that opens an embedded runtime in its own thread reads the
 * read models straight away. Idempotent; the runner's own set-up follows and may rebuild.
 */
export function createEmbeddedTables(projections: readonly AnyProjection[], stores: Record<StoreName, SqliteDatabase>): void {
  for (const db of new Set(Object.values(stores))) for (const statement of sqliteTableDdl(CHECKPOINTS_SCHEMA)) db.exec(statement);
  for (const p of projections) {
    const db = stores[p.store];
    if (!isPortable(p)) {
      p.setup(cachedStore(db));
      continue;
    }
    for (const table of p.tables) if ('columns' in table) for (const statement of sqliteTableDdl(table)) db.exec(statement);
  }
}
