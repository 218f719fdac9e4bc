// Every network destination checks the policy again when it connects: with nothing allowed, a
// loopback target is refused (not retried) before a single connection is opened, whether it is
// named by address or by a name whose lookup answers loopback.
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DestinationError, destinations } from '../../../src/exports/destinations';
import { exportPolicy } from '../../../src/exports/policy';
import { inBatches, makeRecords } from '../../unit/exports-formats/records';
import { runContext } from './run-context';

const NOTHING_ALLOWED = exportPolicy({ dataDir: tmpdir(), allowedHosts: '' });
let listener: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(async () => new Promise<void>((resolve) => listener.close(() => resolve())));

/** Built when a test runs: the listener's port is known only then. */
const CONFIGS: Record<string, (host: string) => Record<string, unknown>> = {
  HTTP: (host) => ({ url: `http://${host}:${port}/batch/`, token: 'phc_token' }),
  S3: (host) => ({ bucket_name: 'b', endpoint_url: `http://${host}:${port}`, aws_access_key_id: 'AKIA', aws_secret_access_key: 'secret' }),
  Postgres: (host) => ({ user: 'u', password: 'p', host, port, database: 'd' }),
};

describe('network destinations at run time', () => {
  for (const host of ['127.0.0.1', 'localhost']) {
    for (const type of Object.keys(CONFIGS)) {
      it(`${type} to ${host} is refused without connecting`, async () => {
        connections = 0;
        const config = CONFIGS[type](host);
        const ctx = runContext({ policy: NOTHING_ALLOWED });
        const error = await destinations[type].write(config, ctx, inBatches(makeRecords(3), 3)).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DestinationError);
        expect((error as DestinationError).retryable).toBe(false);
        expect((error as Error).message).toMatch(new RegExp(`^${type} export refused: host '${host}' resolves to a loopback address`));
        expect(connections).toBe(0);
      });
    }
  }

  it('runs without a policy are refused outright', async () => {
    const error = await destinations.HTTP.write(CONFIGS.HTTP('127.0.0.1'), runContext({ policy: undefined }), inBatches(makeRecords(1), 1)).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/No export policy/);
  });
});
