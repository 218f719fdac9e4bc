import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedAnalytics } from '../../../projections/analytics/embedded';
import { ClickHouseClient } from '../../../src/adapters/clickhouse/http-client';
import { openRuntime } from '../../../src/app';
import { kill9, runBuilt } from '../../support/child';
import { tempDir } from '../../support/temp-dir';
import { CLICKHOUSE_TEST_URL, clickhouseReachable, requireClickhouseInCi } from '../../support/clickhouse';

/*
 * SIGKILL of a service whose analytics store is a ClickHouse server, while clients send batches and
 * the analytics projection inserts them: the next start resumes from what the rows show, and no
 * answer shows an event twice or misses one the read models hold.
 */
const url = CLICKHOUSE_TEST_URL;
const up = await clickhouseReachable();
requireClickhouseInCi(up, 'crash');

describe.runIf(up)('SIGKILL of a service on a ClickHouse analytics store', () => {
  const database = `chwire_${randomBytes(6).toString('hex')}`;
  afterAll(async () => {
    await new ClickHouseClient({ url }).serverCommand(`DROP DATABASE IF EXISTS ${database}`);
  });

  it('leaves no duplicate and no gap in any answer once restarted', { timeout: 60_000 }, async () => {
    const dir = tempDir('chwire-crash-');
    const server = runBuilt({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'info', PRINT_CREDENTIALS: 'false', CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: database });
    const listening = await server.waitForLine((l) => l.includes('Server listening'));
    const base = /listening at (http:\/\/[^"\s]+)/.exec(listening)![1];
    const { project_api_key: token, project_id: projectId } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as { project_api_key: string; project_id: number };

    const client = new ClickHouseClient({ url, database });
    const stored = async () => Number((await client.rows<{ n: string }>('SELECT count() AS n FROM events'))[0].n);
    let stop = false;
    let acked = 0;
    const send = async () => {
      while (!stop) {
        const batch = Array.from({ length: 200 }, (_, i) => ({ event: i % 5 === 0 ? 'purchase' : 'view', uuid: randomUUID(), properties: { distinct_id: `k-${i % 13}` } }));
        try {
          const res = await fetch(`${base}/batch/`, { method: 'POST', body: JSON.stringify({ api_key: token, batch }) });
          if (res.status === 200) acked++;
        } catch {
          return; // the server is gone
        }
      }
    };
    const clients = Array.from({ length: 3 }, send);
    // Killed once the projection has stored some events and clients are still sending.
    while (acked < 10 || (await stored()) === 0) await new Promise((r) => setTimeout(r, 50));
    kill9(server.child);
    await server.exited;
    stop = true;
    await Promise.all(clients);
    const atKill = await stored();

    const runtime = openRuntime({ dataDir: dir, analytics: { kind: 'clickhouse', url, database } });
    try {
      await runtime.ready;
      await runtime.runner.catchUp();
      runtime.runner.start();
      await runtime.analyticsFold!.waitFor(await runtime.log.head());
      const embedded = embeddedAnalytics(runtime.readModels.readmodels);
      const expected = (await embedded.events(projectId, { limit: 1_000_000 })).map((e) => e.uuid);
      const listed = (await runtime.analytics.events(projectId, { limit: 1_000_000 })).map((e) => e.uuid);
      expect(expected.length).toBeGreaterThanOrEqual(10 * 200);
      // The kill found the projection behind the read models: the restart had batches to store.
      expect(atKill).toBeLessThan(expected.length);
      expect(new Set(listed).size).toBe(listed.length);
      expect(listed).toEqual(expected);
      const range = { from: '2000-01-01T00:00:00.000Z', to: null };
      for (const math of ['total', 'dau'] as const)
        expect(await runtime.analytics.experiments.trendCounts(projectId, 'purchase', 'f', range, math)).toEqual(await embedded.experiments.trendCounts(projectId, 'purchase', 'f', range, math));
    } finally {
      await runtime.close();
    }
  });
});
