import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { openIngestTransport } from '../../../src/app/ingest-transport';
import { loadConfig } from '../../../src/config';
import { startIngestConsumers, type IngestConsumers } from '../../../src/adapters/nats/ingest-consumer';
import { ingestStream } from '../../../streams';
import { eventually } from '../../support/eventually';
import { json } from '../../support/json';
import { NatsServer, uniqueLayout } from '../../support/nats';
import { startTestServer, type TestServer } from '../../support/server';
import { tempDir } from '../../support/temp-dir';

const INSTALLED = spawnSync('nats-server', ['--version']).status === 0;

describe('nats-server availability', () => {
  it.runIf(process.env.CI === 'true')('is installed in CI', () => {
    expect(INSTALLED, 'nats-server is not on the PATH').toBe(true);
  });
});

describe.runIf(INSTALLED)('a NATS outage (a server of the test\'s own, stopped and started again)', () => {
  let server: NatsServer;
  let s: TestServer | undefined;
  let consumers: IngestConsumers | undefined;
  afterAll(async () => {
    await consumers?.stop();
    await s?.close();
    await server?.stop();
  });

  it('answers 503 transport_unavailable and an unavailable /_health while NATS is down, accepts again by itself once it is back, and loses nothing acknowledged', async () => {
    server = await NatsServer.create(tempDir('nats-store-'));
    await server.start();
    const layout = uniqueLayout();
    // Through the service's own settings: NATS_PUBLISH_TIMEOUT_MS bounds how long capture waits.
    const config = loadConfig({ NATS_URL: server.url, NATS_STREAM: layout.stream, NATS_SUBJECT_PREFIX: layout.prefix, NATS_PUBLISH_TIMEOUT_MS: '2000' });
    const transport = (await openIngestTransport(config))!;
    s = await startTestServer({ ingestTransport: transport });
    consumers = await startIngestConsumers(s.runtime.log, { url: server.url, ...layout });
    const key = s.credentials.project_api_key;
    const acked: string[] = [];
    const post = async () => {
      const uuid = randomUUID();
      const res = await fetch(`${s!.url}/capture/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: key, event: 'outage', distinct_id: 'd', uuid }) });
      if (res.status === 200) acked.push(uuid);
      return res;
    };
    expect((await post()).status).toBe(200);

    await server.stop();
    const refused = await eventually(post, (r) => r.status === 503, 10_000);
    expect(refused.status).toBe(503);
    // The configured 2 s, not the default 9 s (a generous margin for a loaded machine).
    const asked = performance.now();
    expect((await post()).status).toBe(503);
    expect(performance.now() - asked).toBeLessThan(6_000);
    expect(await refused.json()).toMatchObject({ type: 'server_error', code: 'transport_unavailable' });
    const down = await fetch(`${s.url}/_health`);
    expect(down.status).toBe(503);
    const body = await json(down);
    expect(body.status).toBe('unavailable');
    expect(body.ingest_transport).toMatchObject({ kind: 'nats', status: 'unavailable' });

    await server.start();
    const accepted = await eventually(post, (r) => r.status === 200, 20_000);
    expect(accepted.status).toBe(200);
    const up = await eventually(() => fetch(`${s!.url}/_health`), (r) => r.status === 200, 10_000);
    expect(up.status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await post()).status).toBe(200);

    // Every acknowledged event is in the log once: the consumers reconnected by themselves too.
    const logged = async () =>
      (await s!.runtime.log.readStream(ingestStream(s!.credentials.project_id)))
        .filter((r) => r.type === 'EventsCaptured')
        .flatMap((r) => (r.data as { events: { uuid: string }[] }).events.map((e) => e.uuid));
    const uuids = await eventually(logged, (u) => u.length >= acked.length, 30_000);
    expect(uuids.sort()).toEqual([...acked].sort());
  }, 90_000);
});
