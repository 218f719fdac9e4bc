import { randomUUID } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { NatsIngestTransport } from '../../../src/adapters/nats/nats-transport';
import { startIngestThread } from '../../../src/app/ingest-thread';
import type { StartedRole } from '../../../src/runtime/leased-role';
import { startTsWorker } from '../../../src/threads';
import { ingestStream } from '../../../streams';
import { eventually } from '../../support/eventually';
import { deleteStream, LOCAL_NATS_URL, natsReachable, uniqueLayout } from '../../support/nats';
import { startTestServer, type TestServer } from '../../support/server';

const REACHABLE = await natsReachable();

describe('NATS availability (ingest thread)', () => {
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(REACHABLE, `NATS at ${LOCAL_NATS_URL} is unreachable`).toBe(true);
  });
});

// The ingest role runs on a thread of its own: one that ends unasked must not leave the process
// accepting events that nothing appends any more.
describe.runIf(REACHABLE)('the ingest thread', () => {
  const layout = uniqueLayout();
  let s: TestServer;
  let role: StartedRole | null = null;
  afterAll(async () => {
    await role?.stop();
    await s?.close();
    await deleteStream(LOCAL_NATS_URL, layout.stream);
  });

  it('is started again after it ends unasked, and what is captured meanwhile is appended once', async () => {
    const transport = await NatsIngestTransport.open({ url: LOCAL_NATS_URL, ...layout });
    s = await startTestServer({ ingestTransport: transport });
    const workers: Worker[] = [];
    const errors: string[] = [];
    role = await startIngestThread(
      { log: s.runtime.logSpec, consumers: { url: LOCAL_NATS_URL, ...layout, ackWaitMs: 2000 } },
      (position) => s.runtime.notifications.notify(position),
      (message) => errors.push(message),
      {
        launch: (entry, data) => {
          const worker = startTsWorker(entry, data);
          workers.push(worker);
          return worker;
        },
        restartMs: 100,
      },
    );
    const logged = async () => (await s.runtime.log.readStream(ingestStream(s.credentials.project_id))).flatMap((r) => (r.data as { events: { uuid: string }[] }).events.map((e) => e.uuid));
    const capture = async (event: string) => {
      const uuid = randomUUID();
      const res = await fetch(`${s.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: s.credentials.project_api_key, batch: [{ event, uuid, distinct_id: 'u' }] }) });
      expect(res.status).toBe(200);
      return uuid;
    };

    const first = await capture('before');
    await eventually(logged, (u) => u.includes(first), 20_000);
    await workers[0].terminate();
    const second = await capture('while down');
    await eventually(async () => workers.length, (n) => n === 2, 20_000);
    expect(await eventually(logged, (u) => u.includes(second), 20_000)).toEqual([first, second]);
    expect(errors.some((m) => /exited with code \d+: starting it again/.test(m))).toBe(true);
    // The projections were woken by the new thread's appends too.
    await s.runtime.runner.waitFor(await s.runtime.log.head());
  }, 60_000);
});
