import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { bootstrap } from '../../../src/access';
import { tmpdir } from 'node:os';
import { loadConfig } from '../../../src/config';
import { exportPolicyFromConfig } from '../../../src/exports';
import type { ExportScheduler, ExportWorker, WorkerSettings } from '../../../src/exports';
import { buildApp } from '../../../src/http';
import { openRuntime } from '../../../src/app';
import { json, type Json } from '../../support/json';
import type { TestServer } from '../../support/server';
import { tempDir } from '../../support/temp-dir';

/** A clock the test moves by hand: the log, ingestion, the API, the scheduler and the worker all read it. */
export class DrivenClock {
  private t: number;
  constructor(iso: string) {
    this.t = Date.parse(iso);
  }
  readonly now = (): Date => new Date(this.t);
  set(iso: string): void {
    this.t = Date.parse(iso);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface ExportServer extends TestServer {
  clock: DrivenClock;
  scheduler: ExportScheduler;
  worker: ExportWorker;
  projectId: number;
  organizationId: string;
  /** One scheduler tick, then every claimable run executed. */
  tick(): Promise<void>;
  /** POSTs events to /batch/ (gzipped, as posthog-node does) and waits until they are folded. */
  capture(events: Record<string, unknown>[]): Promise<void>;
  /** Like `api`, parsed; fails the test on an unexpected status. */
  call(path: string, init?: RequestInit & { status?: number }): Promise<Json>;
}

/**
 * The tests' export policy: File exports anywhere under the temp directory (each test writes into
 * its own temp dir), and the local servers (PostgreSQL, s3rver, HTTP receivers) on loopback.
 */
export const TEST_EXPORT_ENV = { EXPORT_FILE_ROOT: tmpdir(), EXPORT_ALLOWED_HOSTS: '127.0.0.0/8,::1' };

export const FAST_RETRIES: Partial<WorkerSettings> = { retryBaseMs: 1000, retryMaxMs: 8000, maxAttempts: 3 };

/**
 * A real server (HTTP on a free port, SQLite files in a temp dir) whose runtime reads a driven
 * clock, with the export scheduler and worker wired to the same runtime but not looping: tests
 * call tick() after moving the clock.
 */
export async function startExportServer(options: {
  start: string;
  dataDir?: string;
  worker?: Partial<WorkerSettings>;
  /** Configuration on top of the test defaults (EXPORT_FILE_ROOT, EXPORT_ALLOWED_HOSTS, ...). */
  env?: Record<string, string>;
}): Promise<ExportServer> {
  const clock = new DrivenClock(options.start);
  const dataDir = options.dataDir ?? tempDir('exports-');
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', PRINT_CREDENTIALS: 'false', ...TEST_EXPORT_ENV, ...options.env });
  const runtime = openRuntime({ dataDir, durability: config.DURABILITY, now: clock.now, exportPolicy: exportPolicyFromConfig(config) });
  await runtime.runner.catchUp();
  runtime.runner.start();
  const app = await buildApp(runtime, config, { logger: false });
  const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const scheduler = runtime.exports.scheduler();
  const worker = runtime.exports.worker({ settings: { ...FAST_RETRIES, ...options.worker } });
  const project = (await runtime.queries.access.projectByToken(credentials.project_api_key))!;

  const api: TestServer['api'] = (path, init = {}) => {
    const { key = credentials.personal_api_key, headers, ...rest } = init;
    const h = new Headers(headers);
    if (key) h.set('authorization', `Bearer ${key}`);
    if (rest.body && !h.has('content-type')) h.set('content-type', 'application/json');
    return fetch(url + path, { ...rest, headers: h });
  };
  const settle = async () => runtime.runner.waitFor(await runtime.log.head());
  return {
    url,
    app,
    runtime,
    credentials,
    config,
    dataDir,
    api,
    clock,
    scheduler,
    worker,
    projectId: project.id,
    organizationId: project.organization_id,
    async tick() {
      await scheduler.tick();
      await worker.drain();
      await settle();
    },
    async capture(events) {
      const body = gzipSync(JSON.stringify({ api_key: credentials.project_api_key, batch: events }));
      const res = await fetch(`${url}/batch/`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
      expect(res.status).toBe(200);
      await settle();
    },
    async call(path, init = {}) {
      const { status, ...rest } = init;
      const res = await api(path, rest);
      const text = await res.text();
      expect(res.status, `${init.method ?? 'GET'} ${path}: ${text}`).toBe(status ?? (init.method === 'POST' && !/\/(pause|unpause|backfill|cancel|retry)\/$/.test(path) ? 201 : 200));
      return text ? (JSON.parse(text) as Json) : null;
    },
    close: async () => {
      await worker.stop();
      await scheduler.stop();
      await app.close();
      await runtime.close();
    },
  };
}

/** `count` events for distinct ids user-0..user-(users-1), with a timestamp each. */
export function makeEvents(
  count: number,
  options: { timestamp?: (i: number) => string; event?: (i: number) => string; users?: number; prefix?: string } = {},
): { event: string; distinct_id: string; timestamp?: string; properties: Record<string, unknown> }[] {
  return Array.from({ length: count }, (_, i) => ({
    event: options.event ? options.event(i) : i % 3 === 0 ? 'signed up' : '$pageview',
    distinct_id: `${options.prefix ?? 'user'}-${i % (options.users ?? 7)}`,
    timestamp: options.timestamp?.(i),
    properties: { $current_url: `https://example.com/p/${i}`, n: i, $lib: 'test', nested: { a: [1, 'two'] }, ...(i % 5 === 0 ? { $set: { plan: 'pro' } } : {}) },
  }));
}

export { json };
