import { createHash, type Hash } from 'node:crypto';
import type { ReadModelProjection } from '../store/read-model-projection';
import type { SqlSession } from '../store/sql';
import { QUARANTINE_TABLE, quarantineRows } from './quarantine';

/** Text is hashed in pieces of about this many characters. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Feeds text to the hash in larger pieces than a row: two updates per row cost about as much as
 * encoding it. The digest is that of the concatenation either way; the pieces are JSON texts (lone
 * surrogates escaped) and ASCII names, so no character is split between two of them.
 */
function chunkedHash(hash: Hash) {
  let pending = '';
  return {
    add(text: string) {
      pending += text;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, only where the pieces are cut: the digest is of their concatenation
      if (pending.length >= CHUNK_CHARS) {
        hash.update(pending);
        pending = '';
      }
    },
    flush() {
      // Stryker disable next-line ConditionalExpression: equivalent, an empty update hashes nothing
      if (pending) hash.update(pending);
      // Stryker disable next-line StringLiteral: equivalent, the hash is read right after the one flush
      pending = '';
    },
  };
}

/**
 * sha256 over every row of a projection's tables (row-text.ts), in their declared total order, and its
 * quarantines. Adapters return the same values for the same rows, so the digest of a store does not
 * depend on the engine holding it.
 */
export async function digestProjection(db: SqlSession, projection: Pick<ReadModelProjection, 'name' | 'tables'>): Promise<string> {
  const hash = createHash('sha256');
  const text = chunkedHash(hash);
  for (const table of projection.tables) {
    text.add(`table ${table.name}\n`);
    for await (const row of db.rowTexts(table)) {
      text.add(row);
      text.add('\n');
    }
  }
  // Quarantined events are part of what the fold did: a replay must skip the same ones. Hashed only
  // when there are some, so digests of stores without quarantines are as before.
  const quarantined = await quarantineRows(db, projection.name);
  if (quarantined.length) {
    text.add(`table ${QUARANTINE_TABLE}\n`);
    for (const row of quarantined) text.add(JSON.stringify(row) + '\n');
  }
  text.flush();
  return hash.digest('hex');
}
