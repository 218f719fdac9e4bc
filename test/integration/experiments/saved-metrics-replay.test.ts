import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { cli } from '../../support/cli';
import { startTestServer } from '../../support/server';
import { createExperiment, experimentsPath, send } from './helpers';

// `verify` rebuilds every read model from the log: saved metrics and their links (ids numbered in
// log order, links removed by a PATCH or by a deleted metric) must come out byte for byte the same.
describe('replay of saved experiment metrics', () => {
  it('verify reproduces them and their links exactly; a tampered link is caught', async () => {
    const s = await startTestServer();
    const path = (rest = '') => `/api/projects/${s.credentials.project_id}/experiment_saved_metrics/${rest}`;
    const query = { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: 'purchase' }] };
    try {
      const a = await json(await send(s, 'POST', path(), { name: 'Replay A', query }));
      const b = await json(await send(s, 'POST', path(), { name: 'Replay B', query, tags: ['x'] }));
      await send(s, 'PATCH', path(`${a.id}/`), { description: 'changed' });
      const ids = [
        { id: a.id, metadata: { type: 'primary' } },
        { id: b.id, metadata: { type: 'secondary' } },
      ];
      const e1 = await createExperiment(s, { name: 'Replay links', feature_flag_key: 'replay-links', saved_metrics_ids: ids });
      const e2 = await createExperiment(s, { name: 'Replay links 2', feature_flag_key: 'replay-links-2', saved_metrics_ids: ids.slice(1) });
      await send(s, 'PATCH', experimentsPath(s, `${e1.id}/`), { saved_metrics_ids: ids.slice(0, 1) });
      await send(s, 'DELETE', path(`${b.id}/`));
      expect((await json(await s.api(experimentsPath(s, `${e2.id}/`)))).saved_metrics).toEqual([]);
      expect((await json(await s.api(experimentsPath(s, `${e1.id}/`)))).saved_metrics.map((l: { saved_metric: number }) => l.saved_metric)).toEqual([a.id]);
    } finally {
      await s.close();
    }

    const verified = cli(s.dataDir, ['verify', '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    const report = JSON.parse(verified.stdout);
    expect(report.ok).toBe(true);
    expect(report.rows.map((r: { projection: string }) => r.projection)).toEqual(expect.arrayContaining(['experiment_saved_metrics', 'activity']));

    const db = new Database(join(s.dataDir, 'readmodels.sqlite'));
    db.prepare('UPDATE experiment_saved_metric_links SET gone = 0').run();
    db.close();
    const broken = cli(s.dataDir, ['verify']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/DIFF experiment_saved_metrics/);
  });
});
