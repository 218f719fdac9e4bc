import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedAnalytics } from '../../../projections/analytics/embedded';
import { openRuntime } from '../../../src/app';
import { kill9, runBuilt } from '../../support/child';
import { tempDir } from '../../support/temp-dir';
import { using, type AnalyticsEngine } from './engines';

/*
 * SIGKILL of a service whose analytics store is ClickHouse, while clients send batches and the
 * analytics projection inserts them: the next start resumes from what the rows show, and no answer
 * shows an event twice or misses one the read models hold.
 */
export function analyticsCrashSuite(engine: AnalyticsEngine): void {
  describe(`SIGKILL of a service on a ${engine.name} analytics store`, () => {
    const dir = tempDir('chwire-crash-');
    const database = `chwire_${randomBytes(6).toString('hex')}`;
    afterAll(() => using(engine.connect(dir, null), (admin) => admin.serverCommand(`DROP DATABASE IF EXISTS ${database}`)));

    it('leaves no duplicate and no gap in any answer once restarted', { timeout: 60_000 }, async () => {
      const server = runBuilt({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'info', PRINT_CREDENTIALS: 'false', ...engine.env(dir, database) });
      const listening = await server.waitForLine((l) => l.includes('Server listening'));
      const base = /listening at (http:\/\/[^"\s]+)/.exec(listening)![1];
      const credentials = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as { project_api_key: string; personal_api_key: string; project_id: number };
      const { project_api_key: token, project_id: projectId } = credentials;
      // Through the service (chDB's files are its process's alone while it runs): the events API reads the analytics store.
      const someStored = async () => {
        const res = await fetch(`${base}/api/projects/${projectId}/events/?limit=1`, { headers: { Authorization: `Bearer ${credentials.personal_api_key}` } });
        return res.status === 200 && ((await res.json()) as { results: unknown[] }).results.length > 0;
      };
      const stored = () => using(engine.connect(dir, database), async (c) => Number((await c.rows<{ n: string }>('SELECT count() AS n FROM events'))[0].n));
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
      while (acked < 10 || !(await someStored())) await new Promise((r) => setTimeout(r, 50));
      kill9(server.child);
      await server.exited;
      stop = true;
      await Promise.all(clients);
      const atKill = await stored();

      const runtime = openRuntime({ dataDir: dir, analytics: engine.choice(dir, database) });
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
}
