import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bootstrap } from '../../../src/access';
import { EventStoreEventLog } from '../../../src/adapters/eventstore';
import { openRuntime } from '../../../src/app';
import { claimDataDir } from '../../../src/app/log-identity';
import { loadConfig } from '../../../src/config';
import { buildApp } from '../../../src/http';
import { inProcessAppendNotifications } from '../../../src/store/append-notifications';
import { DataDirError } from '../../../src/store/data-dir';
import { capturedInLog } from '../../support/captured';
import { json } from '../../support/json';
import { KurrentStandIn } from '../../support/kurrent-stand-in';
import { tempDir } from '../../support/temp-dir';

const spec = (url: string, streamPrefix = '') => ({ kind: 'eventstore' as const, url, streamPrefix });

describe('DATA_DIR belongs to one KurrentDB log', () => {
  it('records the hosts and stream prefix (no credentials), and refuses another log or an SQLite install', () => {
    const dir = tempDir('esdb-dir-');
    claimDataDir(dir, spec('esdb://admin:changeit@node1:2113,node2:2113?tls=false', 'tenant_a-'));
    const recorded = readFileSync(join(dir, 'event-log.json'), 'utf8');
    expect(JSON.parse(recorded)).toEqual({ kind: 'eventstore', server: 'node1:2113,node2:2113', streamPrefix: 'tenant_a-' });
    expect(recorded).not.toContain('changeit');
    // The same log again, other credentials or settings: fine.
    claimDataDir(dir, spec('kurrentdb://ops:pw@node1:2113,node2:2113?tls=true', 'tenant_a-'));
    expect(() => claimDataDir(dir, spec('esdb://node1:2113,node2:2113', 'tenant_b-'))).toThrow(DataDirError);
    expect(() => claimDataDir(dir, spec('esdb://node3:2113', 'tenant_a-'))).toThrow(/holds read models of the KurrentDB log node1:2113,node2:2113 streams tenant_a-\*, not of the KurrentDB log node3:2113/);
    expect(() => claimDataDir(dir, { kind: 'postgres', url: 'postgres://127.0.0.1/db', schema: 'event_log' })).toThrow(DataDirError);
    expect(() => claimDataDir(dir, { kind: 'sqlite', path: join(dir, 'events.sqlite') })).toThrow(/not of an SQLite log/);
  });
});

describe('the service on the KurrentDB adapter (over the stand-in server)', () => {
  it('bootstraps, ingests over HTTP, folds the projections from $all and lists the events; a second runtime on the same log sees them', async () => {
    const server = new KurrentStandIn();
    const url = 'esdb://127.0.0.1:2113?tls=false';
    const open = (dataDir: string) => {
      const log = EventStoreEventLog.over(server.client(), { pollIntervalMs: 20 });
      return openRuntime({ dataDir, eventLog: { log, notifications: inProcessAppendNotifications(log), storage: log.storage, spec: spec(url) } });
    };
    const dataDir = tempDir('esdb-runtime-');
    const runtime = open(dataDir);
    const app = await buildApp(runtime, loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' }), { logger: false });
    try {
      await runtime.runner.catchUp();
      runtime.runner.start();
      const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
      expect(existsSync(join(dataDir, 'event-log.json'))).toBe(true);
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const batch = await fetch(`${base}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: credentials.project_api_key, batch: ['a', 'b', 'c'].map((d) => ({ event: 'signed up', distinct_id: d, properties: { plan: 'pro' } })) }),
      });
      expect(batch.status).toBe(200);
      const flag = await fetch(`${base}/api/projects/${credentials.project_id}/feature_flags/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${credentials.personal_api_key}` },
        body: JSON.stringify({ key: 'on-kurrent', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }),
      });
      expect(flag.status).toBe(201);
      await runtime.runner.waitFor(await runtime.log.head());
      const events = await json(await fetch(`${base}/api/projects/${credentials.project_id}/events/?event=signed%20up`, { headers: { authorization: `Bearer ${credentials.personal_api_key}` } }));
      expect((events.results as { distinct_id: string }[]).map((e) => e.distinct_id).sort()).toEqual(['a', 'b', 'c']);
      expect((await capturedInLog(runtime.log)).map((e) => e.distinct_id)).toEqual(['a', 'b', 'c']);
    } finally {
      await app.close();
      await runtime.close();
    }
    // Another process's read models, folded from the same log from scratch.
    const other = open(tempDir('esdb-runtime-2-'));
    try {
      await other.runner.catchUp();
      expect((await capturedInLog(other.log)).map((e) => e.distinct_id)).toEqual(['a', 'b', 'c']);
      expect(other.queries.access.firstOrganization()).toBeTruthy();
    } finally {
      await other.close();
    }
  });
});
