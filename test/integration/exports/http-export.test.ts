import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { closedPort } from '../destinations/run-context';
import { makeEvents, startExportServer, type ExportServer } from './harness';

const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
let a: ExportServer;
let b: TestServer;
let proxy: Server;
let proxyUrl: string;
/** What the proxy in front of B does with each request: forward, or answer 503 (B "down"). */
let plan: ('forward' | 'down' | 'hang')[] = [];
let received = 0;
let hung: { release: () => void; arrived: Promise<void>; arrive: () => void } | null = null;

async function forward(req: IncomingMessage, res: ServerResponse, body: Buffer) {
  const upstream = await fetch(`${b.url}/batch/`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-encoding': String(req.headers['content-encoding'] ?? '') } });
  res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
}

beforeAll(async () => {
  a = await startExportServer({ start: '2024-07-01T09:50:00Z', worker: { maxAttempts: 5, batchSize: 500 } });
  b = await startTestServer();
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      received++;
      const step = plan.shift() ?? 'forward';
      if (step === 'down') return void res.writeHead(503).end('upstream unavailable');
      if (step === 'hang' && hung) {
        hung.arrive();
        await new Promise<void>((resolve) => (hung!.release = resolve));
      }
      await forward(req, res, Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/batch/`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await a.close();
  await b.close();
});

const base = () => `/api/projects/${a.projectId}/batch_exports`;
const eventsAt = async (server: TestServer, projectId: number) => {
  await server.runtime.runner.waitFor(await server.runtime.log.head());
  return server.runtime.queries.ingestion.events(projectId, { limit: 10_000 });
};
const bProject = async () => (await b.runtime.queries.access.projectByToken(b.credentials.project_api_key))!.id;

describe('HTTP destination: one instance of this service exporting into another', () => {
  it('retries while the receiver is down or fails midway, then delivers every event exactly once', async () => {
    a.clock.set('2024-07-01T09:50:00Z');
    const exp = await a.call(`${base()}/`, post({ name: 'to B', destination: { type: 'HTTP', config: { url: proxyUrl, token: b.credentials.project_api_key } }, interval: 'hour' }));
    expect(exp.destination.config).toEqual({ url: proxyUrl });
    a.clock.set('2024-07-01T10:15:00Z');
    await a.capture(makeEvents(1500, { timestamp: (i) => new Date(Date.UTC(2024, 5, 30, 12, 0, 0, i)).toISOString(), users: 40 }));

    // Attempt 1: B is down. Attempt 2: the first request of 1000 gets through, the second does not.
    plan = ['down', 'forward', 'down'];
    a.clock.set('2024-07-01T11:00:10Z');
    await a.tick();
    let run = (await a.call(`${base()}/${exp.id}/runs/`)).results[0];
    expect(run).toMatchObject({ status: 'FailedRetryable', latest_error: expect.stringMatching(/HTTP 503/) });
    expect(run.latest_error).not.toContain(b.credentials.project_api_key);

    a.clock.advance(1000);
    await a.tick();
    run = (await a.call(`${base()}/${exp.id}/runs/${run.id}/`));
    expect(run.status).toBe('FailedRetryable');
    expect((await eventsAt(b, await bProject())).length).toBe(1000);

    a.clock.advance(2000);
    await a.tick();
    run = await a.call(`${base()}/${exp.id}/runs/${run.id}/`);
    expect(run).toMatchObject({ status: 'Completed', records_completed: 1500, records_total_count: 1500 });
    const warnings = await a.call(`${base()}/${exp.id}/runs/${run.id}/logs/?level=WARNING`);
    expect(warnings.count).toBe(2);

    const sent = await eventsAt(a, a.projectId);
    const got = await eventsAt(b, await bProject());
    expect(got).toHaveLength(1500);
    const gotByUuid = new Map(got.map((e) => [e.uuid, e]));
    for (const e of sent) {
      const copy = gotByUuid.get(e.uuid)!;
      expect(copy, e.uuid).toBeDefined();
      expect({ event: copy.event, distinct_id: copy.distinct_id, timestamp: copy.timestamp, historical: copy.historical_migration }).toEqual({
        event: e.event,
        distinct_id: e.distinct_id,
        timestamp: e.timestamp,
        historical: true,
      });
      const { $geoip_disable: _g, ...props } = copy.properties;
      expect(props).toEqual(e.properties);
    }
    // B's persons got the $set the events carried.
    const person = (await b.runtime.queries.ingestion.personByDistinctId(await bProject(), 'user-0'))!;
    expect(person.properties.plan).toBe('pro');

    // Running the completed interval again leaves B unchanged.
    await a.call(`${base()}/${exp.id}/runs/${run.id}/retry/`, post({}));
    await a.tick();
    expect((await a.call(`${base()}/${exp.id}/runs/${run.id}/`)).status).toBe('Completed');
    expect(await eventsAt(b, await bProject())).toHaveLength(1500);
  });

  it('fails the run once the retries are used up, with its error and logs', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}/batch/`;
    a.clock.set('2024-07-01T09:50:00Z');
    const exp = await a.call(`${base()}/`, post({ name: 'dead', destination: { type: 'HTTP', config: { url: dead, token: 'phc_whatever_token_123' } }, interval: 'hour', start_at: '2024-07-01T11:00:00Z' }));
    a.clock.set('2024-07-01T11:00:10Z');
    await a.tick();
    const [run] = (await a.call(`${base()}/${exp.id}/runs/`)).results;
    for (let attempt = 2; attempt <= 5; attempt++) {
      expect((await a.call(`${base()}/${exp.id}/runs/${run.id}/`)).status).toBe('FailedRetryable');
      a.clock.advance(8000);
      await a.tick();
    }
    const failed = await a.call(`${base()}/${exp.id}/runs/${run.id}/`);
    expect(failed).toMatchObject({ status: 'Failed', records_completed: 0, latest_error: expect.stringMatching(/^Could not connect to http:\/\/127\.0\.0\.1:\d+\/batch\/$/) });
    const logs = await a.call(`${base()}/${exp.id}/runs/${run.id}/logs/?level=WARNING,ERROR`);
    expect(logs.results.map((l: { level: string }) => l.level)).toEqual(['ERROR', 'WARNING', 'WARNING', 'WARNING', 'WARNING']);
    expect((await a.call(`${base()}/${exp.id}/`)).paused).toBe(false);
  });

  it('cancels a queued run, and stops a running one at its next batch', async () => {
    a.clock.set('2024-07-01T09:50:00Z');
    const exp = await a.call(`${base()}/`, post({ name: 'cancel', destination: { type: 'HTTP', config: { url: proxyUrl, token: b.credentials.project_api_key } }, interval: 'hour' }));
    a.clock.set('2024-07-01T12:00:05Z');
    await a.scheduler.tick();
    const runs = (await a.call(`${base()}/${exp.id}/runs/`)).results;
    expect(runs.map((r: { data_interval_end: string }) => r.data_interval_end.slice(11, 16))).toEqual(['12:00', '11:00', '10:00']);
    // The 10:00-11:00 run holds the 1500 events; the other two are empty and get cancelled while queued.
    const [latest, busy, first] = runs;
    expect((await a.call(`${base()}/${exp.id}/runs/${latest.id}/cancel/`, post({}))).status).toBe('Cancelled');
    expect((await a.call(`${base()}/${exp.id}/runs/${latest.id}/cancel/`, { ...post({}), status: 400 })).detail).toBe("Cannot cancel a run that is in 'Cancelled' status");
    await a.call(`${base()}/${exp.id}/runs/${first.id}/cancel/`, post({}));

    let arrive = () => {};
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    hung = { release: () => {}, arrived, arrive };
    plan = ['hang'];
    const before = received;
    const draining = a.worker.drain();
    await hung.arrived;
    expect((await a.call(`${base()}/${exp.id}/runs/${busy.id}/`)).status).toBe('Running');
    await a.call(`${base()}/${exp.id}/runs/${busy.id}/cancel/`, post({}));
    hung.release();
    await draining;
    hung = null;
    await a.runtime.runner.waitFor(await a.runtime.log.head());
    // 1500 events, 500 per batch: the first request (1000) went out, then the run noticed.
    expect(received - before).toBe(1);
    const statuses = (await a.call(`${base()}/${exp.id}/runs/`)).results.map((r: { status: string }) => r.status);
    expect(statuses).toEqual(['Cancelled', 'Cancelled', 'Cancelled']);
    const logs = await a.call(`${base()}/${exp.id}/runs/${busy.id}/logs/`);
    expect(logs.results.map((l: { message: string }) => l.message)).toContain('Run cancelled; export stopped');
  });
});
