import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { connect, headers } from '@nats-io/transport-node';
import { startIngestConsumers, type IngestConsumers } from '../../../src/adapters/nats/ingest-consumer';
import { ENVELOPE_FORMAT, ENVELOPE_FORMAT_HEADER, envelopes, messageId } from '../../../src/adapters/nats/envelope';
import { subjectFor } from '../../../src/adapters/nats/layout';
import { ingestStream } from '../../../streams';
import { eventually } from '../../support/eventually';
import { LOCAL_NATS_URL, natsReachable, natsRequiredInCi } from '../../support/nats';
import { natsCaptureSuite } from '../../support/nats-capture';

const REACHABLE = await natsReachable();

natsRequiredInCi(REACHABLE, 'NATS availability (tampered messages)');

// The ingest role hands a format-2 message's record texts to the log without parsing them, so a
// body that is not the one capture published (its digest is not its Nats-Msg-Id) must be refused
// before it is appended: one unparseable text would leave the log unreadable at its position.
describe.runIf(REACHABLE)('a message whose body is not the published one', () => {
  const suite = natsCaptureSuite();
  const { layout } = suite;
  let consumers: IngestConsumers | null = null;
  suite.onClose(() => consumers?.stop());

  it('is terminated unappended; the messages after it are appended and the log stays readable', async () => {
    const s = await suite.start();
    const projectId = s.credentials.project_id;
    const subject = subjectFor(layout, false, projectId);
    const tamperedUuid = randomUUID();
    const [body] = envelopes(
      {
        streamId: ingestStream(projectId),
        projectId,
        historical: false,
        records: [{ type: 'EventsCaptured', data: { events: [{ uuid: tamperedUuid, event: 'tampered', distinct_id: 'x', properties: {}, timestamp: new Date().toISOString() }] } }],
        context: { actor: { type: 'project_key', projectId }, projectId },
      },
      1024 * 1024,
    );
    const id = await messageId(subject, body);
    // The same lengths, one byte changed: the head still parses, the record's text no longer does.
    const tampered = Buffer.from(body);
    tampered[tampered.indexOf('{"events"')] = 'x'.charCodeAt(0);
    const nc = await connect({ servers: LOCAL_NATS_URL });
    try {
      const h = headers();
      h.set('Nats-Msg-Id', id);
      h.set(ENVELOPE_FORMAT_HEADER, ENVELOPE_FORMAT);
      await jetstream(nc).publish(subject, tampered, { headers: h });
    } finally {
      await nc.close();
    }
    const good = { event: 'after', uuid: randomUUID(), distinct_id: 'y', properties: {} };
    const res = await fetch(`${s.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: s.credentials.project_api_key, batch: [good] }) });
    expect(res.status).toBe(200);

    const errors: string[] = [];
    // As the ingest role appends (src/app/ingest-worker.ts): under the contracts, which would parse the texts.
    consumers = await startIngestConsumers(s.runtime.log.inner, { ...suite.consumers, onError: (message) => errors.push(message) });
    const logged = await eventually(
      async () => (await s.runtime.log.readStream(ingestStream(projectId))).flatMap((r) => (r.data as { events: { uuid: string }[] }).events.map((e) => e.uuid)),
      (uuids) => uuids.includes(good.uuid),
      30_000,
    );
    expect(logged).toEqual([good.uuid]);
    expect(errors.some((m) => /is not an ingestion envelope: terminated/.test(m))).toBe(true);
  }, 60_000);
});
