import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export type Durability = 'normal' | 'strict';

/**
 * WAL keeps a returned commit safe from a process crash (the frames are in the file before commit
 * returns); `strict` adds an fsync per commit (synchronous=FULL) so it also survives power loss.
 */
export interface OpenOptions {
  durability?: Durability;
  readonly?: boolean;
  pageSize?: number;
  /** WAL pages after which a commit of this connection checkpoints (default 4000). */
  autoCheckpointPages?: number;
  /**
   * A file that is thrown away, not recovered, when the process stops mid-way (a replay's fresh
   * read models): no fsync at all (synchronous=OFF), whatever `durability` says.
   */
  scratch?: boolean;
}

export function openSqlite(path: string, options: OpenOptions = {}) {
  if (path !== ':memory:' && !options.readonly) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // A new database is its owner's only whatever the umask (SQLite would create it 0644); its
    // -wal and -shm files take the database file's mode.
    closeSync(openSync(path, 'a', 0o600));
  }
  const db = new Database(path, { readonly: options.readonly ?? false });
  db.pragma('busy_timeout = 10000');
  if (!options.readonly) {
    // Only takes effect on a new file (before WAL): bigger pages mean fewer splits of the wide
    // event-table indexes (the log keeps small pages: its single-event commits write whole pages).
    db.pragma(`page_size = ${options.pageSize ?? 16384}`);
    db.pragma('journal_mode = WAL');
    // A checkpoint fsyncs the database file; doing it every 1000 pages (the default) cost ingestion
    // a third of its throughput. ~64 MB of WAL between checkpoints instead.
    db.pragma(`wal_autocheckpoint = ${options.autoCheckpointPages ?? 4000}`);
    db.pragma(`synchronous = ${options.scratch ? 'OFF' : options.durability === 'strict' ? 'FULL' : 'NORMAL'}`);
  }
  db.pragma('cache_size = -65536');
  // Reads of large tables (experiment results, exports) copy less through the page cache.
  db.pragma('mmap_size = 268435456');
  db.pragma('temp_store = MEMORY');
  return db;
}

export type SqliteDatabase = Database.Database;
