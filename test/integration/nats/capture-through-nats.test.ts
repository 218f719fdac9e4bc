import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startIngestConsumers, type IngestConsumers } from '../../../src/adapters/nats/ingest-consumer';
import { ingestStream, recordingStream } from '../../../streams';
import { optInToRecordings, rrweb, sendSnapshots, snapshotEvent } from '../recordings/snapshots';
import { eventually } from '../../support/eventually';
import { json } from '../../support/json';
import { natsReachable, natsRequiredInCi } from '../../support/nats';
import { posthogClient } from '../../support/posthog';
import { natsCaptureSuite } from '../../support/nats-capture';
import type { TestServer } from '../../support/server';

const REACHABLE = await natsReachable();

natsRequiredInCi(REACHABLE);

interface CapturedEvents {
  events: { uuid: string; event: string }[];
}

/** Every captured event's uuid in the project's ingest stream, in log order. */
async function loggedUuids(s: TestServer): Promise<string[]> {
  const records = await s.runtime.log.readStream(ingestStream(s.credentials.project_id));
  return records.filter((r) => r.type === 'EventsCaptured').flatMap((r) => (r.data as CapturedEvents).events.map((e) => e.uuid));
}

describe.runIf(REACHABLE)('capture through NATS JetStream (the local server)', () => {
  const suite = natsCaptureSuite();
  const { layout } = suite;
  let s: TestServer;
  let consumers: IngestConsumers | null = null;
  suite.onClose(() => consumers?.stop());

  it('accepts while no ingest role runs (the backlog waits in JetStream), then drains it exactly once and in order', async () => {
    s = await suite.start();
    const key = s.credentials.project_api_key;
    const sent: string[] = [];
    const sentSet = () => new Set(sent);
    // posthog-node, then plain /batch/ requests, one of them historical and larger than a message (1 MiB).
    const client = posthogClient(s, { flushAt: 10 });
    for (let i = 0; i < 25; i++) {
      const uuid = randomUUID();
      sent.push(uuid);
      client.capture({ distinctId: `node-${i % 3}`, event: 'node_event', uuid, properties: { i } });
    }
    await client.shutdown();
    for (let r = 0; r < 4; r++) {
      const batch = Array.from({ length: 50 }, (_, i) => ({ event: 'batch_event', uuid: randomUUID(), distinct_id: `u-${i % 7}`, properties: { r, i } }));
      const res = await fetch(`${s.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: key, batch }) });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 1 });
      sent.push(...batch.map((e) => e.uuid));
    }
    const large = Array.from({ length: 3000 }, (_, i) => ({ event: 'imported', uuid: randomUUID(), distinct_id: `h-${i % 11}`, timestamp: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString(), properties: { pad: 'p'.repeat(1000), i } }));
    const res = await fetch(`${s.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: key, historical_migration: true, batch: large }) });
    expect(res.status).toBe(200);
    const historical: string[] = large.map((e) => e.uuid);
    const historicalSet = new Set(historical);

    // Acknowledged, yet nothing appended: every message waits for the ingest role.
    expect(await loggedUuids(s)).toEqual([]);
    const health = await json(await fetch(`${s.url}/_health`));
    expect(health.ingest_transport.kind).toBe('nats');
    expect(health.ingest_transport.status).toBe('ok');
    const lag = health.ingest_transport.consumers;
    expect(lag[`${layout.stream}_live`].pending).toBeGreaterThanOrEqual(1 + 4);
    expect(lag[`${layout.stream}_historical`].pending).toBeGreaterThanOrEqual(3);
    expect(lag[`${layout.stream}_historical`].oldest_age_seconds).toBeGreaterThanOrEqual(0);

    consumers = await startIngestConsumers(s.runtime.log, suite.consumers);
    const all = [...sent, ...historical];
    const logged = await eventually(() => loggedUuids(s), (u) => u.length >= all.length, 30_000);
    expect(logged.length).toBe(all.length);
    expect(new Set(logged)).toEqual(new Set(all));
    // Per consumer, request order holds: the live events as sent, the historical request's as it was cut.
    const live = sentSet();
    expect(logged.filter((u) => live.has(u))).toEqual(sent);
    expect(logged.filter((u) => historicalSet.has(u))).toEqual(historical);

    // The events API (the projections) holds them, once each.
    await s.runtime.runner.waitFor(await s.runtime.log.head());
    const nodeEvents = await json(await s.api(`/api/projects/${s.credentials.project_id}/events/?event=node_event&limit=100`));
    expect(nodeEvents.results.map((e: { id: string }) => e.id).sort()).toEqual(sent.slice(0, 25).sort());

    const drained = await eventually(
      async () => (await json(await fetch(`${s.url}/_health`))).ingest_transport.consumers,
      (c: Record<string, { pending: number; ack_pending: number; oldest_age_seconds: number | null }>) => Object.values(c).every((x) => x.pending === 0 && x.ack_pending === 0),
    );
    expect(Object.values(drained).map((x) => [x.pending, x.ack_pending, x.oldest_age_seconds])).toEqual([
      [0, 0, null],
      [0, 0, null],
    ]);

    // A second holder later finds nothing more to append.
    await consumers.stop();
    consumers = await startIngestConsumers(s.runtime.log, suite.consumers);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await loggedUuids(s)).length).toBe(all.length);
  }, 90_000);

  it('carries /s/ session recordings through NATS to the recordings stream', async () => {
    await optInToRecordings(s);
    const t0 = Date.UTC(2026, 10, 20, 12, 0, 0);
    const session = '0192d0f1-aaaa-7bbb-8ccc-0000000000aa';
    const res = await sendSnapshots(s.url, [snapshotEvent(s.credentials.project_api_key, { sessionId: session, windowId: 'w1', distinctId: 'rec', data: [rrweb.meta(t0, 'https://app.example/'), rrweb.full(t0), rrweb.click(t0 + 500)] })]);
    expect(res.status, await res.clone().text()).toBe(200);
    const stored = await eventually(() => s.runtime.log.readStream(recordingStream(s.credentials.project_id)), (r) => r.length >= 1, 15_000);
    expect(stored.map((r) => r.type)).toEqual(['RecordingSnapshotsCaptured']);
    expect(JSON.stringify(stored[0].data)).toContain(session);
  }, 30_000);
});
