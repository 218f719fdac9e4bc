import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NatsIngestTransport } from '../../../src/adapters/nats/nats-transport';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { runTs } from '../../support/child';
import { eventually } from '../../support/eventually';
import { deleteStream, LOCAL_NATS_URL, natsReachable, natsRequiredInCi, uniqueLayout } from '../../support/nats';
import { tempDir } from '../../support/temp-dir';

const REACHABLE = await natsReachable();

natsRequiredInCi(REACHABLE);

describe.runIf(REACHABLE)('the ingest role killed mid-drain (SIGKILL between an append and its ack)', () => {
  const layout = uniqueLayout();
  afterAll(() => deleteStream(LOCAL_NATS_URL, layout.stream));

  it('appends every message once, in per-project order, after a restart: the redelivered message is answered by the idempotent append', async () => {
    const transport = await NatsIngestTransport.open({ url: LOCAL_NATS_URL, ...layout });
    const MESSAGES = 60;
    const context = (projectId: number) => ({ actor: { type: 'project_key' as const, projectId }, projectId });
    for (let n = 0; n < MESSAGES; n++) {
      const projectId = 1 + (n % 3);
      const events = Array.from({ length: 4 }, (_, k) => ({ n, k }));
      await transport.handOver({ streamId: `ingest-${projectId}`, projectId, historical: false, records: [{ type: 'EventsCaptured', data: { events } }], context: context(projectId) });
    }
    await transport.close();

    const path = join(tempDir('nats-crash-'), 'events.sqlite');
    const env = { NATS_URL: LOCAL_NATS_URL, NATS_STREAM: layout.stream, NATS_SUBJECT_PREFIX: layout.prefix, NATS_ACK_WAIT_MS: '2000' };
    const first = runTs('test/support/children/nats-ingest.ts', [path], { ...env, KILL_AFTER: '17' });
    await first.exited;
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(first.lines.filter((l) => l.startsWith('appended'))).toHaveLength(17);

    const second = runTs('test/support/children/nats-ingest.ts', [path], env);
    try {
      const log = new SqliteEventLog(path, { readonly: true });
      const rows = await eventually(() => log.readAll(), (r) => r.length >= MESSAGES, 30_000);
      // Whatever is redelivered late comes in now, or never.
      await new Promise((r) => setTimeout(r, 3000));
      const all = await log.readAll();
      expect(rows.length).toBe(MESSAGES);
      expect(all.length).toBe(MESSAGES);
      for (const projectId of [1, 2, 3]) {
        const ns = (await log.readStream(`ingest-${projectId}`)).map((e) => (e.data as { events: { n: number }[] }).events[0].n);
        expect(ns).toEqual(Array.from({ length: MESSAGES }, (_, n) => n).filter((n) => 1 + (n % 3) === projectId));
      }
      // The 17th message was appended, not acknowledged, and delivered again: answered, not appended.
      expect(second.lines.filter((l) => l.endsWith('duplicate')).length).toBeGreaterThanOrEqual(1);
      log.close();
    } finally {
      second.child.kill('SIGKILL');
      await second.exited;
    }
  }, 90_000);
});
