import { afterAll } from 'vitest';
import { NatsIngestTransport } from '../../src/adapters/nats/nats-transport';
import { deleteStream, LOCAL_NATS_URL, uniqueLayout } from './nats';
import { startTestServer, type TestServer } from './server';

/**
 * A test server whose capture publishes to a stream of its own on the local NATS server. Called
 * inside a describe: after its tests, what was handed to `onClose` is stopped (the last first), then
 * the server is closed and the stream deleted.
 */
export function natsCaptureSuite() {
  const layout = uniqueLayout();
  const closers: (() => Promise<unknown> | undefined)[] = [];
  let server: TestServer | undefined;
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await server?.close();
    await deleteStream(LOCAL_NATS_URL, layout.stream);
  });
  return {
    layout,
    /** What the ingest role's consumers take to read this stream. */
    consumers: { url: LOCAL_NATS_URL, ...layout },
    onClose(close: () => Promise<unknown> | undefined): void {
      closers.push(close);
    },
    async start(): Promise<TestServer> {
      server = await startTestServer({ ingestTransport: await NatsIngestTransport.open({ url: LOCAL_NATS_URL, ...layout }) });
      return server;
    },
  };
}
