/**
 * SQLite result codes that say the store itself is failing (disk full, I/O error, read-only, locked,
 * corrupt), not that the event is bad. Such an error must stop the projection, never quarantine the
 * event: the same event applies fine once the store is repaired, and a replay would not skip it.
 */
const STORE_FAULTS = [
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_READONLY',
  'SQLITE_CANTOPEN',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_NOMEM',
  'SQLITE_PROTOCOL',
  'SQLITE_PERM',
  'SQLITE_AUTH',
  'SQLITE_INTERRUPT',
  'SQLITE_ABORT',
];

export function isStorageFault(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return STORE_FAULTS.some((prefix) => code === prefix || code.startsWith(`${prefix}_`));
}
