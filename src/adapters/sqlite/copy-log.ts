import Database from 'better-sqlite3';
import { hasChainHashes } from './chain-hashes';

/**
 * Copies the SQLite log at `source` to `target` (a new file) as it stood at `toPosition`: every
 * table as it is (VACUUM INTO, consistent while others append), then the events after that position
 * removed. The copy is a log of its own, positions unchanged, that a read-only service can serve.
 */
export function copyLogUntil(source: string, target: string, toPosition: number): void {
  const from = new Database(source, { readonly: true, fileMustExist: true });
  try {
    from.prepare('VACUUM INTO ?').run(target);
  } finally {
    from.close();
  }
  const copy = new Database(target);
  try {
    copy.prepare('DELETE FROM events WHERE position > ?').run(toPosition);
    // The hashes of appends wholly after it (an append across it keeps the hashes of its records before).
    if (hasChainHashes(copy)) {
      copy.prepare('DELETE FROM chain_hashes WHERE first_position > ?').run(toPosition);
    }
    copy.pragma('journal_mode = WAL');
  } finally {
    copy.close();
  }
}
