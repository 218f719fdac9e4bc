import { chmodSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DirectoryStore } from '../../src/exports/destinations/file/directory-store';
import { exportPolicy } from '../../src/exports/policy';
import { keepNewFilesPrivate, tightenDataDir } from '../../src/runtime/private-files';
import { tempDir } from '../support/temp-dir';

const mode = (path: string) => lstatSync(path).mode & 0o777;

describe('files written for File exports', () => {
  // This test file runs in its own process (pool: forks): its umask is set as the server sets it.
  const started = process.umask(0o022);
  keepNewFilesPrivate();
  afterAll(() => void process.umask(started));

  async function exportOne(dataDir: string, fileRoot: string | undefined) {
    const { files } = exportPolicy({ dataDir, fileRoot });
    const { dir, realRoot } = await files.prepare('daily/2026');
    const store = new DirectoryStore(dir, realRoot, 'daily/2026', files.modes);
    await store.put('part/0.jsonl', '{}\n');
    const upload = await store.open('part/1.jsonl');
    await new Promise<void>((done) => upload.stream.end('{}\n', done));
    await upload.commit();
    return join(realRoot, 'daily', '2026', 'part');
  }

  it('under DATA_DIR are private: directories 0700, files 0600', async () => {
    const dataDir = tempDir('export-modes-');
    const part = await exportOne(dataDir, undefined);
    expect([mode(join(dataDir, 'exports')), mode(join(dataDir, 'exports', 'daily')), mode(part)]).toEqual([0o700, 0o700, 0o700]);
    expect([mode(join(part, '0.jsonl')), mode(join(part, '1.jsonl'))]).toEqual([0o600, 0o600]);
  });

  it('under an export root outside DATA_DIR keep the modes of the umask the process started with', async () => {
    const dataDir = tempDir('export-modes-');
    const outside = join(tempDir('export-elsewhere-'), 'shared');
    const part = await exportOne(dataDir, outside);
    expect([mode(outside), mode(join(outside, 'daily')), mode(part)]).toEqual([0o755, 0o755, 0o755]);
    expect([mode(join(part, '0.jsonl')), mode(join(part, '1.jsonl'))]).toEqual([0o644, 0o644]);
  });
});

describe('tightening an existing data directory', () => {
  it('takes group and other bits from the directory and everything in it, keeps the owner bits, leaves links and their targets alone', () => {
    const dir = tempDir('tighten-');
    const elsewhere = join(tempDir('tighten-target-'), 'shared.txt');
    writeFileSync(elsewhere, 'x');
    chmodSync(elsewhere, 0o644);
    mkdirSync(join(dir, 'imports'));
    writeFileSync(join(dir, 'imports', 'a.json'), '{}');
    writeFileSync(join(dir, 'tool.sh'), '');
    chmodSync(join(dir, 'tool.sh'), 0o755);
    symlinkSync(elsewhere, join(dir, 'link'));
    for (const p of [dir, join(dir, 'imports')]) chmodSync(p, 0o755);
    chmodSync(join(dir, 'imports', 'a.json'), 0o640);

    expect(tightenDataDir(dir)).toBe(`DATA_DIR ${dir} was open to other users (mode 0755): took group and other permissions away from 4 entries (directories now 0700, files 0600)`);
    expect([mode(dir), mode(join(dir, 'imports')), mode(join(dir, 'imports', 'a.json')), mode(join(dir, 'tool.sh'))]).toEqual([0o700, 0o700, 0o600, 0o700]);
    expect(mode(elsewhere)).toBe(0o644);
    expect(tightenDataDir(dir)).toBeNull();
  });

  it('says nothing about a directory that does not exist yet', () => {
    expect(tightenDataDir(join(tempDir('tighten-'), 'absent'))).toBeNull();
  });
});
