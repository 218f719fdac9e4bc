import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NatsIngestTransport } from '../../../src/adapters/nats/nats-transport';
import { startIngestConsumers, type IngestConsumers } from '../../../src/adapters/nats/ingest-consumer';
import { ingestStream } from '../../../streams';
import { eventually } from '../../support/eventually';
import { freePort, NatsServer, uniqueLayout } from '../../support/nats';
import { startTestServer, type TestServer } from '../../support/server';
import { tempDir } from '../../support/temp-dir';

const INSTALLED = spawnSync('nats-server', ['--version']).status === 0;

describe('nats-server availability', () => {
  it.runIf(process.env.CI === 'true')('is installed in CI', () => {
    expect(INSTALLED, 'nats-server is not on the PATH').toBe(true);
  });
});

describe.runIf(INSTALLED)('a three-node NATS cluster, NATS_REPLICAS=3', () => {
  const nodes: NatsServer[] = [];
  let s: TestServer | undefined;
  let consumers: IngestConsumers | undefined;
  afterAll(async () => {
    await consumers?.stop();
    await s?.close();
    for (const n of nodes) await n.stop();
  });

  it('loses nothing and refuses nothing when one node is stopped under load', async () => {
    const dir = tempDir('nats-cluster-');
    const clusterPorts = [await freePort(), await freePort(), await freePort()];
    const routes = clusterPorts.map((p) => `nats://127.0.0.1:${p}`).join(',');
    for (let i = 0; i < 3; i++) {
      nodes.push(await NatsServer.create(join(dir, `n${i}`), ['-n', `n${i}`, '--cluster_name', 'c', '--cluster', `nats://127.0.0.1:${clusterPorts[i]}`, '--routes', routes]));
    }
    await Promise.all(nodes.map((n) => n.start()));
    const url = nodes.map((n) => n.url).join(',');
    const layout = uniqueLayout(3);
    // The stream can be created once JetStream's meta group has a leader.
    let transport: NatsIngestTransport | null = null;
    // The publish deadline (9 s by default) covers a leader election on a machine with spare CPU;
    // in CI, with the whole suite running beside this cluster on two cores, an election took
    // longer. The claim tested is that a retry within the deadline loses and refuses nothing.
    for (let attempt = 0; !transport && attempt < 60; attempt++) {
      transport = await NatsIngestTransport.open({ url, ...layout, publishTimeoutMs: 30_000 }).catch(async () => {
        await new Promise((r) => setTimeout(r, 500));
        return null;
      });
    }
    expect(transport).not.toBeNull();
    s = await startTestServer({ ingestTransport: transport! });
    consumers = await startIngestConsumers(s.runtime.log, { url, ...layout });
    const key = s.credentials.project_api_key;
    const acked: string[] = [];
    const statuses: number[] = [];
    const send = async () => {
      const batch = Array.from({ length: 20 }, () => ({ event: 'clustered', uuid: randomUUID(), distinct_id: 'd' }));
      const res = await fetch(`${s!.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: key, batch }) });
      statuses.push(res.status);
      if (res.status === 200) acked.push(...batch.map((e) => e.uuid));
    };
    // Stop a node other than the one capture is connected to (its clients reconnect within a moment).
    const connectedPort = Number(transport!.nc.info?.port ?? 0);
    const victim = nodes.find((n) => n.port !== connectedPort)!;
    const load = (async () => {
      for (let i = 0; i < 60; i++) await Promise.all([send(), send()]);
    })();
    await new Promise((r) => setTimeout(r, 300));
    await victim.stop();
    await load;
    expect(statuses.filter((x) => x !== 200)).toEqual([]);

    const logged = async () =>
      (await s!.runtime.log.readStream(ingestStream(s!.credentials.project_id))).flatMap((r) => (r.data as { events: { uuid: string }[] }).events.map((e) => e.uuid));
    const uuids = await eventually(logged, (u) => u.length >= acked.length, 60_000);
    expect(uuids.length).toBe(acked.length);
    expect(new Set(uuids)).toEqual(new Set(acked));
  }, 180_000);
});
