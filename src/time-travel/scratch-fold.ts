import type { RecordedEvent } from '../../streams';
import type { ReadModelProjection } from '../store/read-model-projection';
import type { ScratchStores } from '../store/read-models';
import type { SqlSession, TableSchema } from '../store/sql';

export interface ScratchFold<T> {
  /** The projections whose tables the fold needs, and whose `apply` sees the events they handle. */
  projections: readonly ReadModelProjection[];
  /** Tables a query joins that no event here writes (created empty). */
  tables?: readonly TableSchema[];
  /** Rows the fold starts from (ids the live store assigned in log order), written before any event. */
  prepare?: (db: SqlSession) => Promise<void>;
  /** The events, of one or more streams; applied in log order. */
  events: readonly RecordedEvent[];
  /** Applies the events instead of each projection's `apply` (e.g. only some parts of a record). */
  applyEvents?: (events: readonly RecordedEvent[], db: SqlSession) => Promise<void>;
  /** Puts back what the live store decided outside these events (an id assigned in log order), before `read`. */
  fixup?: (db: SqlSession) => Promise<void>;
  read: (db: SqlSession) => Promise<T>;
}

/**
 * Folds a few streams with the product's own projections into a scratch store and reads the result
 * with the product's own queries: the rows as they stood, in the same shape as the live read models,
 * with no second copy of any fold to drift from the first.
 */
export async function foldInScratch<T>(scratch: ScratchStores, fold: ScratchFold<T>): Promise<T> {
  const store = scratch();
  try {
    return await store.transaction(async (tx) => {
      const tables = new Map<string, TableSchema>();
      for (const t of [...fold.projections.flatMap((p) => p.tables), ...(fold.tables ?? [])]) tables.set(t.name, t);
      await tx.createTables([...tables.values()]);
      await fold.prepare?.(tx);
      const ordered = [...fold.events].sort((a, b) => a.position - b.position);
      if (fold.applyEvents) await fold.applyEvents(ordered, tx);
      else
        for (const event of ordered)
          for (const p of fold.projections) if (!p.handles || p.handles.includes(event.type)) await p.apply(event, tx);
      await fold.fixup?.(tx);
      return fold.read(tx);
    });
  } finally {
    await store.close();
  }
}
