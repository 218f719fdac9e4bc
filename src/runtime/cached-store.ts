import type { SqlStatement, SqlStore } from '../../projections/projection';
import type { SqlDatabase } from '../store/sql-database';

/** Hands projections a store whose prepared statements are compiled once per SQL text. */
export function cachedStore(db: SqlDatabase): SqlStore {
  const cache = new Map<string, SqlStatement>();
  return {
    prepare(sql) {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = db.prepare(sql) as unknown as SqlStatement;
        cache.set(sql, stmt);
      }
      return stmt;
    },
    exec(sql) {
      db.exec(sql);
    },
  };
}
