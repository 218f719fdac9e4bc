import { createHash } from 'node:crypto';
import type { ReadModelProjection } from '../store/read-model-projection';
import type { SqlSession } from '../store/sql';
import { QUARANTINE_TABLE, quarantineRows } from './quarantine';

const encode = (row: unknown[]) => JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));

/**
 * sha256 over every row of a projection's tables, in their declared total order, and its
 * quarantines. Adapters return the same values for the same rows, so the digest of a store does not
 * depend on the engine holding it.
 */
export async function digestProjection(db: SqlSession, projection: Pick<ReadModelProjection, 'name' | 'tables'>): Promise<string> {
  const hash = createHash('sha256');
  for (const table of projection.tables) {
    hash.update(`table ${table.name}\n`);
    for await (const row of db.stream(`SELECT * FROM ${table.name} ORDER BY ${table.orderBy}`)) {
      hash.update(encode(row));
      hash.update('\n');
    }
  }
  // Quarantined events are part of what the fold did: a replay must skip the same ones. Hashed only
  // when there are some, so digests of stores without quarantines are as before.
  const quarantined = await quarantineRows(db, projection.name);
  if (quarantined.length) {
    hash.update(`table ${QUARANTINE_TABLE}\n`);
    for (const row of quarantined) hash.update(JSON.stringify(row) + '\n');
  }
  return hash.digest('hex');
}
