/**
 * The CLI's exit codes (README "The CLI"): 0 done; 1 the command ran and failed, or `verify` found a
 * difference; 2 the command line is wrong (unknown command or option, a missing or invalid value, a
 * path argument that does not exist or is a directory) or the environment is (an invalid variable,
 * an unusable DATA_DIR): nothing was done.
 */
export const ExitCode = { ok: 0, failure: 1, usage: 2 } as const;

/** A command line the CLI cannot act on; printed as one `error:` line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const FS_REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EEXIST: 'already exists',
};

/** A file-system error as `<path>: <reason>` (Node's own text carries the syscall and errno). */
export function fsErrorMessage(err: unknown): string | null {
  const { code, path } = err as { code?: unknown; path?: unknown };
  if (typeof code !== 'string' || typeof path !== 'string' || !FS_REASONS[code]) return null;
  return `${path}: ${FS_REASONS[code]}`;
}

/** The one line printed for an error a command threw. */
export function errorLine(err: unknown): string {
  const message = fsErrorMessage(err) ?? (err instanceof Error ? err.message : String(err));
  return `error: ${message.split('\n')[0]}`;
}
