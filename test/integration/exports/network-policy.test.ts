// Network destinations (HTTP url, S3 endpoint_url, Postgres host) cannot reach loopback,
// link-local, private or unique-local addresses unless EXPORT_ALLOWED_HOSTS allows them: refused
// at create and PATCH (400, nothing appended) and again when a run connects, after the allowlist
// changed or a name resolves somewhere else than it did.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/temp-dir';
import { makeEvents, startExportServer, type ExportServer } from './harness';

const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
const patch = (body: unknown) => ({ method: 'PATCH', body: JSON.stringify(body) });
const http = (url: string) => ({ name: 'h', destination: { type: 'HTTP', config: { url, token: 'phc_receiver_token' } }, interval: 'hour' });

let receiver: Server;
let hits: number;
let port: number;

beforeAll(async () => {
  hits = 0;
  receiver = createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => res.writeHead(200).end('{"status": 1}'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(async () => new Promise<void>((resolve) => receiver.close(() => resolve())));

async function refused(s: ExportServer, path: string, init: RequestInit): Promise<string> {
  const head = await s.runtime.log.head();
  const res = await s.api(path, init);
  const answer = (await res.json()) as { detail: string };
  expect(res.status, JSON.stringify(answer)).toBe(400);
  expect(answer).toMatchObject({ type: 'validation_error', attr: 'destination' });
  expect(await s.runtime.log.head()).toBe(head);
  return answer.detail as string;
}

describe('network destinations without EXPORT_ALLOWED_HOSTS', () => {
  let s: ExportServer;
  let base: string;
  beforeAll(async () => {
    s = await startExportServer({ start: '2024-06-03T10:05:00Z', env: { EXPORT_ALLOWED_HOSTS: '' } });
    base = `/api/projects/${s.projectId}/batch_exports`;
  });
  afterAll(async () => s.close());

  it('refuses loopback, link-local, private, unique-local and mapped targets at create', async () => {
    const cases: [string, RegExp][] = [
      [`http://127.0.0.1:${port}/batch/`, /loopback/],
      [`http://localhost:${port}/batch/`, /loopback/],
      ['http://[::1]/batch/', /loopback/],
      ['http://169.254.169.254/latest/meta-data/', /link-local/],
      ['http://[fe80::1]/', /link-local/],
      ['http://10.1.2.3/', /private/],
      ['http://172.20.0.1/', /private/],
      ['http://192.168.0.10/', /private/],
      ['http://100.64.0.1/', /private/],
      ['http://[fd00::1]/', /unique-local/],
      ['http://[::ffff:127.0.0.1]/', /loopback/],
      ['http://[::ffff:a9fe:a9fe]/', /link-local/],
      ['http://0.0.0.0/', /unspecified/],
      ['http://2130706433/', /loopback/], // 127.0.0.1 written as one number
      ['http://0x7f.1/', /loopback/],
    ];
    for (const [url, kind] of cases) {
      const detail = await refused(s, `${base}/`, post(http(url)));
      expect(detail, url).toMatch(kind);
      expect(detail).toMatch(/EXPORT_ALLOWED_HOSTS/);
    }
    const pg = { name: 'p', interval: 'hour', destination: { type: 'Postgres', config: { user: 'u', password: 'p', host: '127.0.0.1', database: 'test' } } };
    expect(await refused(s, `${base}/`, post(pg))).toMatch(/Postgres destination config: host '127\.0\.0\.1' resolves to a loopback address/);
    const s3 = { name: 's', interval: 'hour', destination: { type: 'S3', config: { bucket_name: 'b', endpoint_url: 'http://192.168.1.1:9000', aws_access_key_id: 'AKIA', aws_secret_access_key: 'secret' } } };
    expect(await refused(s, `${base}/`, post(s3))).toMatch(/S3 destination config: host '192\.168\.1\.1' resolves to a private address/);
  });

  it('accepts public hosts, and refuses a PATCH that points one at a private address', async () => {
    const exp = await s.call(`${base}/`, post(http('https://203.0.113.10/batch/')));
    const detail = await refused(s, `${base}/${exp.id}/`, patch({ destination: { config: { url: 'http://169.254.169.254/', token: 'phc_receiver_token' } } }));
    expect(detail).toMatch(/link-local/);
    expect((await s.call(`${base}/${exp.id}/`)).destination.config.url).toBe('https://203.0.113.10/batch/');
  });
});

describe('the allowlist is checked again when a run connects', () => {
  const dataDir = tempDir('network-restart-');
  const start = '2024-06-03T10:05:00Z';

  /** Creates the export under `allowed`, then runs its first hour under `atRun`; returns the run. */
  async function createThenRun(url: string, allowed: string, atRun: string) {
    const first = await startExportServer({ start, dataDir, env: { EXPORT_ALLOWED_HOSTS: allowed } });
    const base = `/api/projects/${first.projectId}/batch_exports`;
    let id: string;
    try {
      first.clock.set(start);
      id = (await first.call(`${base}/`, post(http(url)))).id;
      await first.capture(makeEvents(3));
    } finally {
      await first.close();
    }
    const second = await startExportServer({ start: '2024-06-03T11:00:30Z', dataDir, env: { EXPORT_ALLOWED_HOSTS: atRun } });
    try {
      await second.tick();
      const [run] = (await second.call(`${base}/${id}/runs/`)).results;
      return run as { status: string; latest_error: string | null; records_completed: number | null };
    } finally {
      await second.close();
    }
  }

  it('runs while allowed', async () => {
    hits = 0;
    const run = await createThenRun(`http://127.0.0.1:${port}/batch/`, '127.0.0.1', '127.0.0.0/8');
    expect(run).toMatchObject({ status: 'Completed', records_completed: expect.any(Number) });
    expect(hits).toBeGreaterThan(0);
  });

  it('fails the run, sending nothing, once the address is no longer allowed', async () => {
    hits = 0;
    const run = await createThenRun(`http://127.0.0.1:${port}/batch/`, '127.0.0.1', '');
    expect(run.status).toBe('Failed');
    expect(run.latest_error).toMatch(/HTTP export refused: host '127\.0\.0\.1' resolves to a loopback address/);
    expect(hits).toBe(0);
  });

  it('fails the run when a name allowed by name at create resolves where only addresses are allowed now', async () => {
    // `localhost` was allowed as a name; now only 10.0.0.0/8 is: the socket's own lookup refuses
    // the loopback answer before connecting.
    hits = 0;
    const run = await createThenRun(`http://localhost:${port}/batch/`, 'localhost', '10.0.0.0/8');
    expect(run.status).toBe('Failed');
    expect(run.latest_error).toMatch(/HTTP export refused: host 'localhost' resolves to a loopback address/);
    expect(hits).toBe(0);
  });
});
