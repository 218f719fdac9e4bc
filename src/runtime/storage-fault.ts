import { storageFaultOf } from '../store/storage-fault';

/**
 * Beyond the faults that refuse writes (disk full, read-only, I/O), SQLite codes that say the store
 * itself is failing or busy rather than that the event is bad. Such an error must stop the
 * projection, never quarantine the event: the same event applies fine once the store is repaired,
 * and a replay would not skip it.
 */
const STORE_FAULTS = ['SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_NOMEM', 'SQLITE_PROTOCOL', 'SQLITE_PERM', 'SQLITE_AUTH', 'SQLITE_INTERRUPT', 'SQLITE_ABORT'];

export function isStorageFault(err: unknown): boolean {
  if (storageFaultOf(err) !== null) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return STORE_FAULTS.some((prefix) => code === prefix || code.startsWith(`${prefix}_`));
}
