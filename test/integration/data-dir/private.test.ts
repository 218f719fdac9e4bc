import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBuilt } from '../../support/child';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp-dir';

/** Every entry of `dir` (itself as '.') with its permission bits, links left out. */
function modes(dir: string): Record<string, number> {
  const out: Record<string, number> = { '.': lstatSync(dir).mode & 0o777 };
  const visit = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isSymbolicLink()) continue;
      const path = join(d, e.name);
      out[relative(dir, path)] = lstatSync(path).mode & 0o777;
      if (e.isDirectory()) visit(path);
    }
  };
  visit(dir);
  return out;
}

const isDir = (dir: string, entry: string) => lstatSync(join(dir, entry)).isDirectory();

/** What a careless copy or an older version leaves: the directories 0755, the files 0644. */
function loosen(dir: string) {
  for (const entry of Object.keys(modes(dir))) chmodSync(join(dir, entry), isDir(dir, entry) ? 0o755 : 0o644);
}

function expectPrivate(dir: string) {
  const found = modes(dir);
  const wanted = Object.fromEntries(Object.keys(found).map((entry) => [entry, isDir(dir, entry) ? 0o700 : 0o600]));
  expect(found).toEqual(wanted);
}

const warnings = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('warning:'));


describe('a private data directory', () => {
  it('the CLI creates DATA_DIR 0700 with its files 0600, and tightens a 0755 one with one warning', () => {
    const dir = join(tempDir('private-cli-'), 'data');
    const first = cli(dir, ['bootstrap', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(warnings(first.stderr)).toEqual([]);
    expect(cli(dir, ['import', '-'], '{"event":"e","distinct_id":"d"}\n').code).toBe(0);
    expect(Object.keys(modes(dir))).toEqual(expect.arrayContaining(['events.sqlite', 'readmodels.sqlite', 'credentials.json', 'secrets.key', 'imports']));
    expectPrivate(dir);

    loosen(dir);
    expect(modes(dir)['.']).toBe(0o755);
    const second = cli(dir, ['keys', 'list']);
    expect(second.code, second.stderr).toBe(0);
    expect(warnings(second.stderr)).toEqual([expect.stringMatching(new RegExp(`^warning: DATA_DIR ${dir} was open to other users \\(mode 0755\\): took group and other permissions away from \\d+ entries`))]);
    expectPrivate(dir);

    const third = cli(dir, ['keys', 'list']);
    expect(warnings(third.stderr)).toEqual([]);
  });

  it('the server does the same, -wal and -shm files included', async () => {
    const dir = join(tempDir('private-server-'), 'data');
    const fresh = runBuilt({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'info', PRINT_CREDENTIALS: 'false' });
    await fresh.waitForLine((l) => l.includes('Server listening'), 60_000);
    const running = modes(dir);
    expect(Object.keys(running)).toEqual(expect.arrayContaining(['events.sqlite-wal', 'events.sqlite-shm', 'readmodels.sqlite-wal', 'readmodels.sqlite-shm', 'credentials.json', 'secrets.key']));
    expectPrivate(dir);
    expect(warnings(fresh.stderr())).toEqual([]);
    fresh.child.kill('SIGTERM');
    expect(await fresh.exited).toBe(0);

    loosen(dir);
    const again = runBuilt({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'info' });
    await again.waitForLine((l) => l.includes('Server listening'), 60_000);
    expect(warnings(again.stderr())).toEqual([expect.stringMatching(new RegExp(`^warning: DATA_DIR ${dir} was open to other users \\(mode 0755\\): took group and other permissions away`))]);
    expectPrivate(dir);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });
});
