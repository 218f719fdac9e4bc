import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, posix, relative, resolve, sep } from 'node:path';
import { nonRetryableError } from '../destination';
import type { ObjectStore, ObjectUpload } from '../file-export';
import { isInside, walk, type CreatedModes } from '../../policy';

/**
 * Keys as files under a root directory. Each file is written to a hidden temp file beside its
 * target and renamed into place, so readers never see a partial file and a crashed attempt
 * leaves only a temp file behind. Key directories are created one level at a time and a link
 * is followed only when it stays inside `confine` (the export root); temp files are created
 * exclusively, and a rename replaces a link at the target rather than writing through it.
 */
export class DirectoryStore implements ObjectStore {
  private readonly root: string;
  private readonly confine: string;
  private readonly label: string | undefined;
  private readonly modes: CreatedModes | null;

  /**
   * `confine`: the directory no link may lead out of (default: `root`). `label`: how logs name
   * `root` (File exports show the configured path, not where the server keeps its files).
   * `modes`: given to the files and directories it creates (null: the process umask decides).
   */
  constructor(root: string, confine: string = root, label?: string, modes: CreatedModes | null = null) {
    this.root = resolve(root);
    this.confine = resolve(confine);
    this.label = label;
    this.modes = modes;
  }

  describe(key: string): string {
    this.pathOf(key);
    return this.label === undefined ? this.pathOf(key) : posix.join(this.label, key);
  }

  async open(key: string): Promise<ObjectUpload> {
    const target = await this.prepare(key);
    const temp = tempPathFor(target);
    // A deep buffer lets the writer serialise the next rows while the previous ones are written
    // (the default 16 KB made every chunk wait for its write: the export ran one core at a time).
    const stream = createWriteStream(temp, { highWaterMark: 8 * 1024 * 1024, flags: 'wx' });
    return {
      stream,
      commit: async () => {
        await this.applyMode(temp);
        await rename(temp, target);
      },
      discard: async () => {
        // The temp file may still be opening; remove it only once the stream has let go of it.
        if (!stream.closed) await new Promise<void>((done) => stream.destroy().once('close', () => done()));
        await rm(temp, { force: true });
      },
    };
  }

  async put(key: string, body: string): Promise<void> {
    const target = await this.prepare(key);
    const temp = tempPathFor(target);
    await writeFile(temp, body, { flag: 'wx' });
    await this.applyMode(temp);
    await rename(temp, target);
  }

  async list(prefix: string): Promise<string[]> {
    const dir = dirname(this.pathOf(prefix + '_'));
    const namePrefix = basename(prefix + '_').slice(0, -1);
    const real = await walk(this.confine, relative(this.root, dir).split(sep).filter(Boolean), { create: false, from: this.root });
    const entries = await readdir(real, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    return entries
      .filter((e) => e.isFile() && e.name.startsWith(namePrefix))
      .map((e) => relative(this.root, resolve(dir, e.name)).split(sep).join('/'));
  }

  async remove(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map(async (key) => rm(await this.prepare(key, false), { force: true })));
  }

  /** The key's real directory (created unless `create` is false, links checked) joined with its file name. */
  private async prepare(key: string, create = true): Promise<string> {
    const target = this.pathOf(key);
    const dir = await walk(this.confine, relative(this.root, dirname(target)).split(sep).filter(Boolean), { create, from: this.root, dirMode: this.modes?.dir });
    return resolve(dir, basename(target));
  }

  /** Before the rename: a reader never sees the file with other permissions than its final ones. */
  private async applyMode(temp: string): Promise<void> {
    if (this.modes) await chmod(temp, this.modes.file);
  }

  /** The prefix is user-supplied, so a key must not climb out of the root with `..`. */
  private pathOf(key: string): string {
    const target = resolve(this.root, key);
    if (!isInside(this.root, target)) {
      throw nonRetryableError(`Key '${key}' resolves outside the export directory`);
    }
    return target;
  }
}

const tempPathFor = (target: string) => resolve(dirname(target), `.${basename(target)}.${randomUUID()}.tmp`);
