import { randomUUID } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { startIngestThread } from '../../../src/app/ingest-thread';
import type { StartedRole } from '../../../src/runtime/leased-role';
import { startTsWorker } from '../../../src/threads';
import { ingestStream } from '../../../streams';
import { eventually } from '../../support/eventually';
import { natsReachable, natsRequiredInCi } from '../../support/nats';
import { natsCaptureSuite } from '../../support/nats-capture';

const REACHABLE = await natsReachable();

natsRequiredInCi(REACHABLE, 'NATS availability (ingest thread)');

// The ingest role runs on a thread of its own: one that ends unasked must not leave the process
// accepting events that nothing appends any more.
describe.runIf(REACHABLE)('the ingest thread', () => {
  const suite = natsCaptureSuite();
  let role: StartedRole | null = null;
  suite.onClose(() => role?.stop());

  it('is started again after it ends unasked, and what is captured meanwhile is appended once', async () => {
    const s = await suite.start();
    const workers: Worker[] = [];
    const errors: string[] = [];
    role = await startIngestThread(
      { log: s.runtime.logSpec, consumers: { ...suite.consumers, ackWaitMs: 2000 } },
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
