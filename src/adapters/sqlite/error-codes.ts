import { markStorageFault, type StorageFaultReason } from '../../store/storage-fault';

/**
 * What SQLite's result codes (as better-sqlite3 sets them, extended codes included) and the file
 * system's error codes say about the storage under this adapter. The runtime knows none of these:
 * it asks the port (`isStorageFault`), which this adapter answers by marking its errors.
 */

/**
 * Which storage fault an SQLite or file-system error means, if any: a write that cannot be made
 * durable (full disk, read-only, I/O failure, the file moved). Such an error says nothing about the
 * event being written.
 */
export function storageFaultOf(err: unknown): StorageFaultReason | null {
  const code = codeOf(err);
  if (code === null) return null;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'disk_full';
  if (code === 'SQLITE_READONLY_DBMOVED') return 'log_missing';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return 'read_only';
  if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN' || code === 'EIO') return 'io_error';
  return null;
}

/**
 * Beyond the faults that refuse writes (disk full, read-only, I/O), the codes that say the store
 * itself is failing or busy rather than that the data is bad. A family's extended codes
 * (SQLITE_BUSY_SNAPSHOT) are faults exactly as its primary code is.
 */
const STORE_FAULTS = ['SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_NOMEM', 'SQLITE_PROTOCOL', 'SQLITE_PERM', 'SQLITE_AUTH', 'SQLITE_INTERRUPT', 'SQLITE_ABORT'];

/**
 * Whether an error met on an SQLite store is a fault of the store (it must stop a projection,
 * never quarantine the event: the same event applies fine once the store is repaired, and a replay
 * would not skip it) rather than of what was being written.
 */
export function isSqliteStoreFault(err: unknown): boolean {
  if (storageFaultOf(err) !== null) return true;
  const code = codeOf(err);
  return code !== null && STORE_FAULTS.some((prefix) => code === prefix || code.startsWith(`${prefix}_`));
}

/** Rethrow through this: marks a store fault for the port (`isStorageFault`), and answers the error unchanged. */
export function markedIfStoreFault(err: unknown): unknown {
  return isSqliteStoreFault(err) ? markStorageFault(err) : err;
}

function codeOf(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}
