import { createHash } from 'node:crypto';
import type { Projection } from '../../projections/projection';
import type { SqliteDatabase } from '../store/sqlite/open';

/** sha256 over every row of a projection's tables, in their declared total order. */
export function digestProjection(db: SqliteDatabase, projection: Projection): string {
  const hash = createHash('sha256');
  for (const table of projection.tables) {
    hash.update(`table ${table.name}\n`);
    const stmt = db.prepare(`SELECT * FROM ${table.name} ORDER BY ${table.orderBy}`).raw(true);
    for (const row of stmt.iterate() as Iterable<unknown[]>) {
      hash.update(JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
      hash.update('\n');
    }
  }
  return hash.digest('hex');
}
