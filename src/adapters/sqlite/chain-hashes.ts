import type { SqliteDatabase } from './open';

/**
 * Where the SQLite log keeps its chain's hashes: one row per append, holding the 32 bytes of each
 * of its records' hashes in order. Storing a hash in every record's row cost more than hashing it
 * (docs/benchmarks.md); one row per append costs one insert. Records chained before this table
 * keep their hash (64 hex digits) in `events.hash`, which wins where set: readers take both.
 */
export const CHAIN_HASHES_SCHEMA = `
CREATE TABLE IF NOT EXISTS chain_hashes (
  last_position INTEGER PRIMARY KEY,
  first_position INTEGER NOT NULL,
  hashes BLOB NOT NULL
);
`;

export const HASH_BYTES = 32;

/**
 * The stored hash of the `events` row in scope, as an SQL expression: its own column, else its
 * bytes in the append's row that covers its position (NULL for a record before the chain).
 */
export const STORED_HASH_SQL = `coalesce(events.hash, (
  SELECT CASE WHEN c.first_position <= events.position THEN substr(c.hashes, (events.position - c.first_position) * ${HASH_BYTES} + 1, ${HASH_BYTES}) END
  FROM chain_hashes c WHERE c.last_position >= events.position ORDER BY c.last_position LIMIT 1))`;

export function hasChainHashes(db: SqliteDatabase): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chain_hashes'").get() !== undefined;
}

/** A stored hash as read: 32 bytes, or 64 hex digits (chained before the table), or none. */
export function hexOf(stored: string | Buffer | null | undefined): string | null {
  if (stored === null || stored === undefined) return null;
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, a string's toString('hex') is the string itself
  return typeof stored === 'string' ? stored : stored.toString('hex');
}
