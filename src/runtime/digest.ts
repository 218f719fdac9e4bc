import { createHash } from 'node:crypto';
import type { Projection } from '../../projections/projection';
import type { SqlDatabase } from '../store/sql-database';
import { QUARANTINE_TABLE, quarantineRows } from './quarantine';

/** sha256 over every row of a projection's tables, in their declared total order, and its quarantines. */
export function digestProjection(db: SqlDatabase, projection: Projection): string {
  const hash = createHash('sha256');
  for (const table of projection.tables) {
    hash.update(`table ${table.name}\n`);
    const stmt = db.prepare(`SELECT * FROM ${table.name} ORDER BY ${table.orderBy}`).raw(true);
    for (const row of stmt.iterate() as Iterable<unknown[]>) {
      hash.update(JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
      hash.update('\n');
    }
  }
  // Quarantined events are part of what the fold did: a replay must skip the same ones. Hashed only
  // when there are some, so digests of stores without quarantines are as before.
  const quarantined = quarantineRows(db, projection.name);
  if (quarantined.length) {
    hash.update(`table ${QUARANTINE_TABLE}\n`);
    for (const row of quarantined) hash.update(JSON.stringify(row) + '\n');
  }
  return hash.digest('hex');
}
