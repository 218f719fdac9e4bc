import { chmod, lstat, mkdir, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/** A File destination path the export root does not admit; the message says why. */
export class PathRefusedError extends Error {
  readonly code = 'EXPORT_PATH_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'PathRefusedError';
  }
}

/**
 * Whether the absolute `target` is `root` or below it. By path.relative, not a string prefix: a
 * sibling whose name starts with the root's (`<root>-evil/x`) is one `..` away, not inside.
 */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, a shortcut: '' passes the tests after it too
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

// Stryker disable next-line OptionalChaining: equivalent, file-system calls never reject with null
const errnoOf = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code;

/**
 * The one directory File exports write under (EXPORT_FILE_ROOT, default `$DATA_DIR/exports`).
 * A destination `path` is relative to it (`daily` is `<root>/daily`), or absolute and inside it;
 * `..` segments and NUL bytes are refused outright, and a symbolic link on the way must not lead
 * out of the root. The path is stored as given and resolved against the root each time a run
 * writes, so moving the root moves relative paths with it.
 */
/** Modes given explicitly to what exports create (null: what the process umask gives). */
export interface CreatedModes {
  file: number;
  dir: number;
}

export class FileRoot {
  readonly root: string;

  constructor(
    root: string,
    readonly modes: CreatedModes | null = null,
  ) {
    this.root = resolve(root);
  }

  /** The path's segments below the root, or a refusal. Purely lexical. */
  segments(path: string): string[] {
    if (path.includes('\0')) throw new PathRefusedError('path must not contain NUL bytes');
    // Stryker disable next-line Regex: equivalent, splitting on single separators gives the same '..' segments
    if (path.split(/[\\/]+/).includes('..')) throw new PathRefusedError("path must not contain '..' segments");
    // Stryker disable next-line Regex: equivalent, the extra empty segments of single-separator splits are filtered out
    if (!isAbsolute(path)) return path.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
    const target = resolve(path);
    if (!isInside(this.root, target)) throw new PathRefusedError('path is outside the export root; give a path relative to it');
    return relative(this.root, target).split(sep).filter(Boolean);
  }

  /** The root as the file system names it, created when missing (the operator chose it: it may itself be a link). */
  async realRoot(): Promise<string> {
    const created = await mkdir(this.root, { recursive: true });
    if (created !== undefined && this.modes) await chmod(this.root, this.modes.dir);
    return realpath(this.root);
  }

  /**
   * The create/PATCH check: lexical rules, and that no existing part of the path is a link leading
   * out of the root. Parts that do not exist yet are fine; a run creates them.
   */
  async check(path: string): Promise<void> {
    const segments = this.segments(path);
    let real: string;
    try {
      real = await realpath(this.root);
    } catch {
      return; // no root yet: nothing below it can lead out
    }
    // Stryker disable next-line ObjectLiteral: equivalent, create defaults to false
    await walk(real, segments, { create: false });
  }

  /**
   * The run-time resolution: the directory's real path, created one level at a time without
   * following a link out of the root. Everything is checked again here, since links can appear
   * after the export was created.
   */
  async prepare(path: string): Promise<{ dir: string; realRoot: string }> {
    const segments = this.segments(path);
    const realRoot = await this.realRoot();
    const dir = await walk(realRoot, segments, { create: true, dirMode: this.modes?.dir });
    return { dir, realRoot };
  }
}

/**
 * Descends from `realRoot` through `segments`: a link is followed only when its real target
 * stays inside the root; a missing directory is created (with `create`) or ends the walk.
 * Returns the real path reached.
 */
export async function walk(realRoot: string, segments: readonly string[], options: { create: boolean; from?: string; dirMode?: number }): Promise<string> {
  let current = options.from ?? realRoot;
  for (const [i, segment] of segments.entries()) {
    const next = join(current, segment);
    let stat;
    try {
      stat = await lstat(next);
    } catch (err) {
      if (errnoOf(err) !== 'ENOENT') throw err;
      // Nothing below a missing directory can be a link: the rest of the path is where it will be.
      if (!options.create) return join(next, ...segments.slice(i + 1));
      try {
        await mkdir(next);
        if (options.dirMode !== undefined) await chmod(next, options.dirMode);
      } catch (mkdirErr) {
        if (errnoOf(mkdirErr) !== 'EEXIST') throw mkdirErr;
      }
      stat = await lstat(next);
    }
    // Stryker disable next-line ConditionalExpression: equivalent, a directory below the real root is its own real path
    if (stat.isSymbolicLink()) {
      const target = await realpath(next).catch(() => null);
      if (target === null || !isInside(realRoot, target)) throw new PathRefusedError('path leads outside the export root through a symbolic link');
      current = target;
    } else {
      current = next;
    }
    if (!(await lstat(current)).isDirectory()) throw new PathRefusedError(`'${segment}' on the path is not a directory`);
  }
  if (!isInside(realRoot, await realpath(current))) throw new PathRefusedError('path is outside the export root');
  return current;
}
