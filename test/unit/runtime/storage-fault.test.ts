import { describe, expect, it } from 'vitest';
import { isSqliteStoreFault, markedIfStoreFault } from '../../../src/adapters/sqlite/error-codes';
import { isStorageFault } from '../../../src/runtime/storage-fault';

const withCode = (code: unknown) => Object.assign(new Error('x'), { code });

// better-sqlite3 sets SQLite's extended result code (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE, ...):
// a family's extended codes are faults of the store exactly as its primary code is.
describe('SQLite storage faults: what stops a projection rather than quarantining the event', () => {
  it.each([
    'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED_SHAREDCACHE',
    'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_FSYNC', 'SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX',
    'SQLITE_READONLY_DBMOVED', 'SQLITE_READONLY_DIRECTORY', 'SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_ABORT_ROLLBACK', 'ENOSPC', 'EIO',
  ])('%s is a storage fault', (code) => {
    expect(isSqliteStoreFault(withCode(code))).toBe(true);
  });

  it.each(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_MISMATCH', 'SQLITE_ERROR', 'SQLITE_TOOBIG', 'SQLITE_RANGE', 'ERR_INVALID_ARG_TYPE'])(
    '%s blames the event, not the store',
    (code) => {
      expect(isSqliteStoreFault(withCode(code))).toBe(false);
    },
  );

  it('an error without a string code is not one', () => {
    for (const err of [new TypeError('bad'), withCode(5), null, undefined, 'SQLITE_BUSY']) expect(isSqliteStoreFault(err)).toBe(false);
  });
});

// The runtime knows no engine's codes: it sees a fault only once the store's adapter has marked it.
describe('the runtime asks the port', () => {
  it('an error is a storage fault once the SQLite adapter marks it, and only then', () => {
    const busy = withCode('SQLITE_BUSY_SNAPSHOT');
    expect(isStorageFault(busy)).toBe(false);
    expect(markedIfStoreFault(busy)).toBe(busy);
    expect(isStorageFault(busy)).toBe(true);
  });

  it('the adapter leaves an error that blames the data unmarked', () => {
    const unique = withCode('SQLITE_CONSTRAINT_UNIQUE');
    expect(markedIfStoreFault(unique)).toBe(unique);
    expect(isStorageFault(unique)).toBe(false);
    for (const err of [null, undefined, 'SQLITE_BUSY']) expect(isStorageFault(markedIfStoreFault(err))).toBe(false);
  });
});
