import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmStartArgs, repoRoot } from '../../support/child';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { tempDir } from '../../support/temp-dir';

// A real small file system: a 16 MB tmpfs, filled up. Mounting needs root with CAP_SYS_ADMIN;
// where it is refused, this suite is skipped (the PRAGMA-based cases of storage-faults.test.ts
// still produce real SQLITE_FULL / SQLITE_READONLY everywhere). A read-only remount is not tried:
// Linux refuses it (EBUSY) while the service holds its files open for writing.
const mountPoint = tempDir('mount-');
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint]).status === 0;

let s: TestServer;
beforeAll(async () => {
  if (!mounted) return;
  const dataDir = join(mountPoint, 'data');
  mkdirSync(dataDir);
  s = await startTestServer({ dataDir });
});
afterAll(async () => {
  if (!mounted) return;
  await s?.close();
  spawnSync('umount', [mountPoint]);
});

const readOnlyPoint = tempDir('mount-ro-');
const readOnly = mounted && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,ro', 'tmpfs', readOnlyPoint]).status === 0;
afterAll(() => {
  if (readOnly) spawnSync('umount', [readOnlyPoint]);
});

const batch = () =>
  fetch(`${s.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: s.credentials.project_api_key, batch: Array.from({ length: 100 }, (_, i) => ({ event: 'e', distinct_id: `d${i}`, properties: { pad: 'x'.repeat(2000) } })) }),
  });
const health = async () => {
  const res = await fetch(`${s.url}/_health`);
  return { status: res.status, body: await json(res) };
};

describe('tmpfs mounts for the file-system fault tests', () => {
  // CI runs as root on this project's machines, where mounting works: there the suites must run.
  it.runIf(process.env.CI === 'true')('can mount a tmpfs in CI', () => {
    expect(mounted).toBe(true);
    expect(readOnly).toBe(true);
  });
});

describe.skipIf(!mounted)('storage faults on a real file system', () => {
  it('a full disk: writes 503 disk_full and /_health 503, until space is freed', async () => {
    expect((await batch()).status).toBe(200);
    const filler = join(mountPoint, 'filler');
    const fd = openSync(filler, 'w');
    const chunk = Buffer.alloc(64 * 1024, 1);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      closeSync(fd);
    }
    const head = await s.runtime.log.head();
    const full = await batch();
    expect(full.status).toBe(503);
    expect(await json(full)).toMatchObject({ type: 'server_error', code: 'storage_disk_full', attr: null });
    expect(await health()).toMatchObject({ status: 503, body: { status: 'unavailable', storage: { reason: 'disk_full' } } });
    expect(await s.runtime.log.head()).toBe(head);
    unlinkSync(filler);
    expect((await batch()).status).toBe(200);
    expect((await health()).status).toBe(200);
  });
});

describe.skipIf(!readOnly)('a read-only file system at start', () => {
  it('is one line on stderr and exit 2', () => {
    const r = spawnSync(process.execPath, npmStartArgs(), {
      cwd: repoRoot,
      env: { ...process.env, DATA_DIR: readOnlyPoint, PORT: '0', PRINT_CREDENTIALS: 'false' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^DATA_DIR .* cannot be created or written: read-only file system\n$/);
  });
});
