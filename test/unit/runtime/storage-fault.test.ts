import { describe, expect, it } from 'vitest';
import { isStorageFault } from '../../../src/runtime/storage-fault';

const withCode = (code: unknown) => Object.assign(new Error('x'), { code });

// better-sqlite3 sets SQLite's extended result code (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE, ...):
// a family's extended codes are faults of the store exactly as its primary code is.
describe('storage faults: what stops a projection rather than quarantining the event', () => {
  it.each([
    'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED_SHAREDCACHE',
    'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_FSYNC', 'SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX',
    'SQLITE_READONLY_DBMOVED', 'SQLITE_READONLY_DIRECTORY', 'SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_ABORT_ROLLBACK', 'ENOSPC', 'EIO',
  ])('%s is a storage fault', (code) => {
    expect(isStorageFault(withCode(code))).toBe(true);
  });

  it.each(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_MISMATCH', 'SQLITE_ERROR', 'SQLITE_TOOBIG', 'SQLITE_RANGE', 'ERR_INVALID_ARG_TYPE'])(
    '%s blames the event, not the store',
    (code) => {
      expect(isStorageFault(withCode(code))).toBe(false);
    },
  );

  it('an error without a string code is not one', () => {
    for (const err of [new TypeError('bad'), withCode(5), null, undefined, 'SQLITE_BUSY']) expect(isStorageFault(err)).toBe(false);
  });
});
