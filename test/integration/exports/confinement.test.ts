// File exports stay under the export root (EXPORT_FILE_ROOT): refused at create and PATCH with a
// 400 on `destination` (nothing appended), and checked again when a run writes, so a link planted
// after the export was created does not let a run write outside the root.
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/temp-dir';
import { makeEvents, startExportServer, type ExportServer } from './harness';

let s: ExportServer;
let base: string;
let root: string;
let outside: string;
const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
const patch = (body: unknown) => ({ method: 'PATCH', body: JSON.stringify(body) });
const HOUR_KEY = '2024-06-03T10:00:00+00:00-2024-06-03T11:00:00+00:00';

beforeAll(async () => {
  root = join(tempDir('export-root-'), 'root');
  outside = tempDir('outside-root-');
  s = await startExportServer({ start: '2024-06-03T10:05:00Z', env: { EXPORT_FILE_ROOT: root } });
  base = `/api/projects/${s.projectId}/batch_exports`;
});
afterAll(async () => s.close());

const fileExport = (config: Record<string, unknown>, type = 'File') => ({ name: 'f', destination: { type, config }, interval: 'hour' });

/** POSTs `body`, expects 400 on `destination` and that the log did not move. */
async function refused(body: unknown, init: (b: unknown) => RequestInit = post, path = `${base}/`) {
  const head = await s.runtime.log.head();
  const res = await s.api(path, init(body));
  const answer = (await res.json()) as { detail: string };
  expect(res.status, JSON.stringify(answer)).toBe(400);
  expect(answer).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: 'destination' });
  expect(await s.runtime.log.head()).toBe(head);
  return answer.detail as string;
}

describe('File destination confined to the export root', () => {
  it('refuses paths outside the root, .. segments and NUL bytes at create', async () => {
    expect(await refused(fileExport({ path: '/etc' }))).toMatch(/outside the export root/);
    expect(await refused(fileExport({ path: '/root/.ssh' }))).toMatch(/outside the export root/);
    expect(await refused(fileExport({ path: s.dataDir }))).toMatch(/outside the export root/);
    expect(await refused(fileExport({ path: outside }))).toMatch(/outside the export root/);
    // A sibling whose name starts with the root's is not under it.
    expect(await refused(fileExport({ path: `${root}-evil/x` }))).toMatch(/outside the export root/);
    expect(await refused(fileExport({ path: '../../x' }))).toMatch(/'\.\.' segments/);
    expect(await refused(fileExport({ path: 'a/../../b' }))).toMatch(/'\.\.' segments/);
    expect(await refused(fileExport({ path: `${root}/../escape` }))).toMatch(/'\.\.' segments/);
    expect(await refused(fileExport({ path: 'x\u0000y' }))).toMatch(/NUL/);
    expect(await refused(fileExport({ path: 'daily', prefix: '../up' }))).toMatch(/prefix: Must not contain '\.\.' segments/);
    expect(await refused(fileExport({ bucket_name: 'b', prefix: 'a/../../k' }, 'S3'))).toMatch(/prefix: Must not contain '\.\.' segments/);
  });

  it('refuses a path through a link that leads out of the root', async () => {
    mkdirSync(root, { recursive: true });
    symlinkSync(outside, join(root, 'leak'));
    expect(await refused(fileExport({ path: 'leak' }))).toMatch(/symbolic link/);
    expect(await refused(fileExport({ path: 'leak/deeper' }))).toMatch(/symbolic link/);
    // A link that stays inside the root is fine.
    mkdirSync(join(root, 'real'), { recursive: true });
    symlinkSync(join(root, 'real'), join(root, 'alias'));
    await s.call(`${base}/`, post(fileExport({ path: 'alias' })));
  });

  it('resolves relative paths under the root, accepts absolute paths inside it, and shows the path as given', async () => {
    s.clock.set('2024-06-03T10:05:00Z');
    const relative = await s.call(`${base}/`, post(fileExport({ path: 'daily/events' })));
    const absolute = await s.call(`${base}/`, post(fileExport({ path: join(root, 'abs') })));
    expect(relative.destination.config.path).toBe('daily/events');
    expect(absolute.destination.config.path).toBe(join(root, 'abs'));
    await s.capture(makeEvents(3));
    s.clock.set('2024-06-03T11:00:30Z');
    await s.tick();
    for (const exp of [relative, absolute]) expect((await s.call(`${base}/${exp.id}/runs/`)).results[0]).toMatchObject({ status: 'Completed', records_completed: 3 });
    expect(readdirSync(join(root, 'daily', 'events'))).toEqual([`${HOUR_KEY}.jsonl`]);
    // Logs name files by the configured path: where the server keeps the root is not shown.
    const logs = (await s.call(`${base}/${relative.id}/logs/`)).results.map((l: { message: string }) => l.message);
    expect(logs).toContainEqual(expect.stringMatching(new RegExp(`^Wrote 3 records \\(\\d+ bytes\\) to daily/events/${HOUR_KEY.replace(/[+.]/g, '\\$&')}\\.jsonl$`)));
    expect(logs.join('\n')).not.toContain(root);
    expect(readdirSync(join(root, 'abs'))).toEqual([`${HOUR_KEY}.jsonl`]);
  });

  it('refuses the same at PATCH, and keeps the stored path', async () => {
    const exp = await s.call(`${base}/`, post(fileExport({ path: 'kept' })));
    expect(await refused({ destination: { type: 'File', config: { path: '/etc' } } }, patch, `${base}/${exp.id}/`)).toMatch(/outside the export root/);
    expect(await refused({ destination: { config: { path: '../../tmp' } } }, patch, `${base}/${exp.id}/`)).toMatch(/'\.\.' segments/);
    expect(await refused({ destination: { config: { path: 'leak' } } }, patch, `${base}/${exp.id}/`)).toMatch(/symbolic link/);
    expect((await s.call(`${base}/${exp.id}/`)).destination.config.path).toBe('kept');
  });

  it('checks again when a run writes: a link planted after create fails the run and writes nothing outside', async () => {
    s.clock.set('2024-06-03T12:05:00Z');
    const exp = await s.call(`${base}/`, post(fileExport({ path: 'later/inner' })));
    symlinkSync(outside, join(root, 'later'));
    const deep = await s.call(`${base}/`, post(fileExport({ path: 'planted', prefix: 'sub' })));
    mkdirSync(join(root, 'planted'));
    symlinkSync(outside, join(root, 'planted', 'sub'));
    await s.capture(makeEvents(2));
    s.clock.set('2024-06-03T13:00:30Z');
    await s.tick();
    for (const e of [exp, deep]) {
      const [run] = (await s.call(`${base}/${e.id}/runs/`)).results;
      expect(run).toMatchObject({ status: 'Failed', records_completed: 0 });
      expect(run.latest_error).toMatch(/File export refused: path leads outside the export root through a symbolic link/);
    }
    expect(readdirSync(outside)).toEqual([]);
  });

  it('creates the root when it is missing', async () => {
    const missing = join(tempDir('root-parent-'), 'not', 'yet');
    const t = await startExportServer({ start: '2024-06-03T10:05:00Z', env: { EXPORT_FILE_ROOT: missing } });
    try {
      const b = `/api/projects/${t.projectId}/batch_exports`;
      const exp = await t.call(`${b}/`, post(fileExport({ path: 'out' })));
      await t.capture(makeEvents(1));
      t.clock.set('2024-06-03T11:00:30Z');
      await t.tick();
      expect((await t.call(`${b}/${exp.id}/runs/`)).results[0].status).toBe('Completed');
      expect(existsSync(join(missing, 'out', `${HOUR_KEY}.jsonl`))).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('refuses a file in the way rather than writing through it', async () => {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'plain-file'), 'x');
    expect(await refused(fileExport({ path: 'plain-file/sub' }))).toMatch(/not a directory/);
  });
});
