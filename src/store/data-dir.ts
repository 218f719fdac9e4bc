import { accessSync, constants, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename } from 'node:path';

/** A data directory the service must not start on; the message is the one line an operator sees. */
export class DataDirError extends Error {
  override name = 'DataDirError';
}

/** Files the service writes next to its log (analytics.sqlite: by earlier versions): finding them without the log means the log was lost. */
const SERVICE_FILES = ['readmodels.sqlite', 'analytics.sqlite', 'credentials.json', 'secrets.key', 'imports', 'exports'];

const reasonOf = (err: unknown) => {
  const code = (err as { code?: string }).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a parent is not a directory';
  if (code === 'EROFS') return 'read-only file system';
  if (code === 'ENOSPC') return 'no space left on the device';
  return code ?? (err as Error).message;
};

/**
 * Makes sure the data directory can hold this service's data before anything is opened: it is a
 * directory (created if absent), writable, and not a directory whose log is gone while the rest of
 * an install remains (a fresh bootstrap there would silently start a new install with new keys
 * next to the old one's read models and credentials).
 */
export function prepareDataDir(dir: string, logPath: string): void {
  try {
    const existing = statSync(dir, { throwIfNoEntry: false });
    if (existing && !existing.isDirectory()) throw new DataDirError(`DATA_DIR ${dir} is not a directory`);
    // Its owner's only (as PostgreSQL's data directory): the log holds every event and person.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    if (err instanceof DataDirError) throw err;
    throw new DataDirError(`DATA_DIR ${dir} cannot be created or written: ${reasonOf(err)}`);
  }
  if (existsSync(logPath)) return;
  const log = basename(logPath);
  const leftovers = readdirSync(dir).filter((name) => SERVICE_FILES.includes(name) || name.startsWith(`${log}-`));
  if (leftovers.length > 0) {
    throw new DataDirError(
      `DATA_DIR ${dir} has no event log (${log}) but holds files of an install (${leftovers.sort().join(', ')}): ` +
        'refusing to bootstrap a new install over them; restore the log, or move them away to start afresh',
    );
  }
}
