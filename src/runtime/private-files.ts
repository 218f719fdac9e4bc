import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** What the service creates is its owner's only: directories 0700, files 0600. */
const PRIVATE_UMASK = 0o077;
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

let inherited: number | null = null;

/**
 * Sets the process umask to 0077, once, at the start of the server and of the CLI: every file and
 * directory created afterwards (SQLite files with their -wal/-shm, read models, import positions,
 * export files, whatever a later version adds) is its owner's only, without each writer having to
 * remember a mode. Files written outside DATA_DIR on the operator's behalf (a File export root set
 * elsewhere) get the modes the inherited umask gives instead: see `inheritedModes`.
 */
export function keepNewFilesPrivate(): void {
  if (inherited === null) inherited = process.umask(PRIVATE_UMASK);
}

/**
 * The modes a file and a directory would have had under the umask the process started with, or
 * null when this process never changed it (new files already get them).
 */
export function inheritedModes(): { file: number; dir: number } | null {
  return inherited === null ? null : { file: 0o666 & ~inherited, dir: 0o777 & ~inherited };
}

/**
 * Takes group and other permissions away from DATA_DIR and everything in it (links are neither
 * followed nor changed), as PostgreSQL insists on a private data directory. Returns the one
 * warning to print when something had to change (null when it was private already).
 */
export function tightenDataDir(dir: string): string | null {
  // Not there yet, not a directory, or under a file (ENOTDIR): the start's own check says so in one line.
  let top: ReturnType<typeof lstatSync>;
  try {
    top = lstatSync(dir, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!top?.isDirectory()) return null;
  const wasMode = top.mode & 0o777;
  let changed = 0;
  const refused: { path: string; code: string }[] = [];
  const attempt = (path: string, change: () => void) => {
    try {
      change();
    } catch (err) {
      refused.push({ path, code: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
    }
  };
  const visit = (path: string, isDir: boolean, mode: number) => {
    if (mode & 0o077)
      attempt(path, () => {
        chmodSync(path, mode & 0o700);
        changed++;
      });
    if (!isDir) return;
    attempt(path, () => {
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        if (entry.isSymbolicLink() || !(entry.isDirectory() || entry.isFile())) continue;
        const child = join(path, entry.name);
        visit(child, entry.isDirectory(), lstatSync(child).mode & 0o777);
      }
    });
  };
  visit(dir, true, wasMode);
  // On a read-only file system nothing can be changed, nor written: the start's own check refuses it in one line.
  if (refused.some((r) => r.code === 'EROFS')) return null;
  if (!changed && !refused.length) return null;
  const mode = wasMode.toString(8).padStart(4, '0');
  const made = changed ? `took group and other permissions away from ${changed} entr${changed === 1 ? 'y' : 'ies'} (directories now 0700, files 0600)` : '';
  const shown = refused.slice(0, 3).map((r) => `${r.path} (${r.code})`);
  const failed = refused.length ? `${made ? '; ' : ''}could not change ${refused.length}: ${shown.join(', ')}${refused.length > 3 ? ', …' : ''}` : '';
  return `DATA_DIR ${dir} was open to other users (mode ${mode}): ${made}${failed}`;
}
