import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DestinationError, destinations } from '../../../src/exports/destinations';
import type { HttpConfig } from '../../../src/exports/destinations';
import { inBatches, makeRecords } from '../../unit/exports-formats/records';
import { closedPort, runContext } from './run-context';

interface Received {
  headers: IncomingMessage['headers'];
  body: { api_key: string; historical_migration: boolean; batch: Record<string, unknown>[] };
}

const http = destinations.HTTP;
const TOKEN = 'phc_receiving_project_token';
let server: Server;
let received: Received[];
let respond: (res: ServerResponse, body: Received['body']) => void;
let url: string;

beforeEach(async () => {
  received = [];
  respond = (res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status": 1}');
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw).toString() : raw.toString();
      const body = JSON.parse(text) as Received['body'];
      received.push({ headers: req.headers, body });
      respond(res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/batch/`;
});
afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const config = (overrides: Partial<HttpConfig> = {}) => http.configSchema.parse({ url, token: TOKEN, ...overrides }) as HttpConfig;

describe('HTTP destination', () => {
  it("posts gzipped PostHog batches in chunks, in order", async () => {
    const records = makeRecords(2500);
    const result = await http.write(config(), runContext(), inBatches(records, 300));

    expect(result.recordsCompleted).toBe(2500);
    expect(received.map((r) => r.body.batch.length)).toEqual([1000, 1000, 500]);
    for (const { headers, body } of received) {
      expect(headers['content-encoding']).toBe('gzip');
      expect(headers['content-type']).toBe('application/json');
      expect(body.api_key).toBe(TOKEN);
      expect(body.historical_migration).toBe(true);
    }
    const sent = received.flatMap((r) => r.body.batch);
    expect(sent.map((e) => e.uuid)).toEqual(records.map((r) => r.uuid));

    const withPerson = records[0];
    expect(sent[0]).toEqual({
      uuid: withPerson.uuid,
      event: withPerson.event,
      distinct_id: withPerson.distinct_id,
      timestamp: withPerson.timestamp,
      properties: {
        ...withPerson.properties,
        $geoip_disable: true,
        $set: withPerson.set,
        $set_once: withPerson.set_once,
        $elements_chain: withPerson.elements_chain,
      },
    });
    expect(Object.keys(sent[1]).sort()).toEqual(['distinct_id', 'event', 'properties', 'timestamp', 'uuid']);
    expect(sent[1].properties).toEqual({ ...records[1].properties, $geoip_disable: true });
  });

  it('treats 5xx as retryable', async () => {
    respond = (res) => res.writeHead(503).end('overloaded');
    const error = await http.write(config(), runContext(), inBatches(makeRecords(5), 5)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as DestinationError).retryable).toBe(true);
    expect((error as Error).message).toContain('HTTP 503');
  });

  it('treats 4xx as final, without echoing the token', async () => {
    respond = (res, body) => res.writeHead(401).end(`{"detail": "invalid api key ${body.api_key}"}`);
    const error = await http.write(config(), runContext(), inBatches(makeRecords(5), 5)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as DestinationError).retryable).toBe(false);
    expect((error as Error).message).toContain('HTTP 401');
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it('treats a refused connection as retryable, without saying how it failed', async () => {
    const port = await closedPort();
    const down = `http://127.0.0.1:${port}/batch/`;
    const error = await http.write(config({ url: down }), runContext(), inBatches(makeRecords(5), 5)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as DestinationError).retryable).toBe(true);
    expect((error as Error).message).toBe(`Could not connect to http://127.0.0.1:${port}/batch/`);
  });

  it('reports a reset connection exactly like a refused one (no port scanning through run errors)', async () => {
    const { createServer: createTcpServer } = await import('node:net');
    const resetting = createTcpServer((socket) => socket.resetAndDestroy());
    await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
    const port = (resetting.address() as AddressInfo).port;
    try {
      const error = await http.write(config({ url: `http://127.0.0.1:${port}/batch/` }), runContext(), inBatches(makeRecords(5), 5)).catch((e: unknown) => e);
      expect((error as DestinationError).retryable).toBe(true);
      expect((error as Error).message).toBe(`Could not connect to http://127.0.0.1:${port}/batch/`);
    } finally {
      await new Promise<void>((resolve) => resetting.close(() => resolve()));
    }
  });

  it("never repeats the receiver's response body in the error", async () => {
    respond = (res) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('internal: db password is hunter2-internal');
    const error = await http.write(config(), runContext(), inBatches(makeRecords(5), 5)).catch((e: unknown) => e);
    expect((error as DestinationError).retryable).toBe(true);
    expect((error as Error).message).toBe(`${url} answered HTTP 500 (the receiver failed)`);
  });

  it('accepts a stored config as it is and refuses an invalid one without retry', async () => {
    await http.write({ url, token: TOKEN }, runContext(), inBatches(makeRecords(2), 2));
    expect(received).toHaveLength(1);
    const error = await http.write({ url, token: '' }, runContext(), inBatches(makeRecords(2), 2)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as DestinationError).retryable).toBe(false);
    expect((error as Error).message).toBe('Invalid HTTP destination config: token: This field may not be blank');
  });

  it('sends nothing for an empty interval', async () => {
    const result = await http.write(config(), runContext(), inBatches([], 5));
    expect(result.recordsCompleted).toBe(0);
    expect(received).toEqual([]);
  });
});
