import { accessSync, constants, statSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { storageFault, StorageUnavailableError, type StorageFault, type StorageMonitor } from '../../store/storage-fault';
import { storageFaultOf } from './error-codes';

/** Below this many free bytes the disk counts as full for `/_health` (a write may still fit, but barely). */
const FULL_BELOW_BYTES = 1024 * 1024;

/**
 * Watches the file an SQLite log was opened on. An open SQLite connection keeps writing to a file
 * that was unlinked (`rm -rf $DATA_DIR`) or replaced at its path, and those writes are lost with the
 * last descriptor; so before every append the path is stat'ed and compared with the identity
 * pinned at open, and the directory is checked writable (together about 3 µs, on an append of
 * about 45 µs for one event). Errors of a write that cannot be made durable (full disk, read-only
 * file system, I/O failure) become a StorageUnavailableError and are remembered until a write
 * succeeds again.
 */
export class LogFileGuard implements StorageMonitor {
  private readonly dev: number;
  private readonly ino: number;
  private readonly dir: string;
  private lastWriteFault: StorageFault | null = null;

  constructor(private readonly path: string) {
    this.dir = dirname(path);
    const s = statSync(path);
    this.dev = s.dev;
    this.ino = s.ino;
  }

  /** The log file is still the one that was opened: missing or replaced otherwise. */
  fileFault(): StorageFault | null {
    const s = statSync(this.path, { throwIfNoEntry: false });
    if (!s) return storageFault('log_missing');
    if (s.ino !== this.ino || s.dev !== this.dev) return storageFault('log_replaced');
    return null;
  }

  /** Refuses a write that could not be made durable: log gone or replaced, directory not writable (about 3 µs). */
  beforeWrite(): void {
    const fault = this.fileFault() ?? notWritable(this.dir);
    if (fault) throw new StorageUnavailableError(fault);
  }

  afterWrite(): void {
    this.lastWriteFault = null;
  }

  /** A write failed: a storage fault becomes StorageUnavailableError (and is remembered); anything else passes through. */
  translate(err: unknown): unknown {
    const reason = storageFaultOf(err);
    if (!reason) return err;
    const fault = reason === 'log_missing' ? this.fileFault() ?? storageFault(reason) : storageFault(reason);
    this.lastWriteFault = fault;
    return new StorageUnavailableError(fault);
  }

  fault(): StorageFault | null {
    return this.fileFault() ?? this.lastWriteFault ?? notWritable(this.dir) ?? noSpace(this.dir);
  }
}

/** The directory cannot take writes (read-only mount, permissions): SQLite could not create its files there. */
function notWritable(dir: string): StorageFault | null {
  try {
    accessSync(dir, constants.W_OK);
    return null;
  } catch (err) {
    return storageFault(storageFaultOf(err) ?? 'io_error');
  }
}

/** Hardly any space left where the data lives (for `/_health`; a write that does not fit fails with SQLITE_FULL). */
function noSpace(dir: string): StorageFault | null {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize < FULL_BELOW_BYTES ? storageFault('disk_full') : null;
  } catch {
    return null;
  }
}
