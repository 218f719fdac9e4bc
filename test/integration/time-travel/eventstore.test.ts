import { describe, expect, it } from 'vitest';
import { bootstrap } from '../../../src/access';
import { EventStoreEventLog } from '../../../src/adapters/eventstore';
import { openRuntime } from '../../../src/app';
import { loadConfig } from '../../../src/config';
import { buildApp } from '../../../src/http';
import { inProcessAppendNotifications } from '../../../src/store/append-notifications';
import { json, type Json } from '../../support/json';
import { KurrentStandIn } from '../../support/kurrent-stand-in';
import { tempDir } from '../../support/temp-dir';

// as_of where positions are byte offsets of a KurrentDB `$all` (over the stand-in server): a flag and
// two persons of before their merge, as the live service answered then.
describe('as_of on the KurrentDB adapter', () => {
  it('answers a flag and the persons of before a merge as they stood', async () => {
    const server = new KurrentStandIn({ olderBytes: 1n << 33n });
    const log = EventStoreEventLog.over(server.client(), { pollIntervalMs: 20 });
    const dataDir = tempDir('tt-esdb-');
    const runtime = openRuntime({ dataDir, eventLog: { log, notifications: inProcessAppendNotifications(log), storage: log.storage, spec: { kind: 'eventstore', url: 'esdb://127.0.0.1:2113?tls=false', streamPrefix: '' } } });
    const app = await buildApp(runtime, loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' }), { logger: false });
    try {
      await runtime.runner.catchUp();
      runtime.runner.start();
      const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const p = `/api/projects/${credentials.project_id}`;
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${credentials.personal_api_key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
        return { status: res.status, body: (await json(res)) as Json };
      };
      const settle = async () => runtime.runner.waitFor(await runtime.log.head());
      const batch = async (events: unknown[]) => {
        expect((await call('POST', '/batch/', { api_key: credentials.project_api_key, batch: events })).status).toBe(200);
        await settle();
      };

      const flag = (await call('POST', `${p}/feature_flags/`, { key: 'esdb-flag', name: 'then' })).body;
      await batch([{ event: 'seen', distinct_id: 'anon', properties: { $set: { step: 1 } } }, { event: 'seen', distinct_id: 'known', properties: { $set: { email: 'k@example.com' } } }]);
      const paths = [`${p}/feature_flags/${flag.id}/`, `${p}/persons/?distinct_id=anon`, `${p}/persons/?distinct_id=known`];
      const then = await Promise.all(paths.map((path) => call('GET', path)));
      const point = await runtime.log.head();
      // A position past 2^33: byte offsets, not counts.
      expect(point).toBeGreaterThan(2 ** 33);

      await call('PATCH', paths[0], { name: 'now' });
      await batch([{ event: '$identify', distinct_id: 'known', properties: { $anon_distinct_id: 'anon' } }]);
      expect((await call('GET', paths[1])).body.results[0].uuid).toBe((await call('GET', paths[2])).body.results[0].uuid);

      for (const [i, path] of paths.entries()) expect(await call('GET', `${path}${path.includes('?') ? '&' : '?'}as_of=position:${point}`), path).toEqual(then[i]);
    } finally {
      await app.close();
      await runtime.close();
    }
  });
});
