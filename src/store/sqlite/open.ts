import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Durability = 'normal' | 'strict';

/**
 * WAL keeps a returned commit safe from a process crash (the frames are in the file before commit
 * returns); `strict` adds an fsync per commit (synchronous=FULL) so it also survives power loss.
 */
export function openSqlite(path: string, options: { durability?: Durability; readonly?: boolean } = {}) {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { readonly: options.readonly ?? false });
  db.pragma('busy_timeout = 10000');
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.durability === 'strict' ? 'FULL' : 'NORMAL'}`);
  }
  db.pragma('cache_size = -65536');
  // Reads of large tables (experiment results, exports) copy less through the page cache.
  db.pragma('mmap_size = 268435456');
  db.pragma('temp_store = MEMORY');
  return db;
}

export type SqliteDatabase = Database.Database;
