import type { SqlStatement, SqlStore } from '../../../store/read-model-projection';
import type { SqliteDatabase } from '../open';

/**
 * The embedded store's synchronous SQL (the reads not on the read-model port yet), with each
 * statement compiled once per SQL text.
 */
export function cachedStore(db: SqliteDatabase): SqlStore {
  const cache = new Map<string, SqlStatement>();
  return {
    prepare(sql) {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = db.prepare<unknown[]>(sql);
        cache.set(sql, stmt);
      }
      return stmt;
    },
    exec(sql) {
      db.exec(sql);
    },
  };
}
