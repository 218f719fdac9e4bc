import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CreateExperimentBody } from '../../../src/http/schema/experiments';
import { cli } from '../../support/cli';
import { startTestServer } from '../../support/server';
import { createExperiment, experimentsPath, ingestEvents, send } from './helpers';

// `verify` rebuilds every read model from the log and compares digests: experiments (abandoned,
// updated, deleted ones included), their flags and the cohorts must come out byte for byte the same.
describe('replay of experiments, flags and cohorts', () => {
  it('verify reproduces them exactly; a tampered experiment row is caught', async () => {
    const s = await startTestServer();
    const actor = { type: 'user' as const, id: (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!.id };
    try {
      const running = await createExperiment(s, {
        name: 'Replayed',
        feature_flag_key: 'replayed',
        start_date: '2024-01-01T00:00:00Z',
        parameters: { feature_flag_variants: [{ key: 'control', rollout_percentage: 30 }, { key: 'test', rollout_percentage: 70 }] },
        filters: { insight: 'TRENDS', events: [{ id: 'click' }] },
      });
      const draft = await createExperiment(s, { name: 'Draft', feature_flag_key: 'replay-draft' });
      await send(s, 'PATCH', experimentsPath(s, `${draft.id}/`), { parameters: { feature_flag_variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] } });
      await send(s, 'PATCH', experimentsPath(s, `${draft.id}/`), { start_date: '2024-02-01T00:00:00Z', archived: true });
      const doomed = await createExperiment(s, { name: 'Doomed', feature_flag_key: 'replay-doomed' });
      await send(s, 'DELETE', experimentsPath(s, `${doomed.id}/`));
      await Promise.allSettled([0, 1, 2].map(() => s.runtime.experiments.service.create(s.credentials.project_id, CreateExperimentBody.parse({ name: 'Race', feature_flag_key: 'replay-race' }), actor)));
      await ingestEvents(s, [
        { event: '$feature_flag_called', distinct_id: 'a', properties: { $feature_flag: 'replayed', $feature_flag_response: 'test' } },
        { event: '$feature_flag_called', distinct_id: 'b', properties: { $feature_flag: 'replayed', $feature_flag_response: 'control' } },
        { event: '$identify', distinct_id: 'b-user', properties: { $anon_distinct_id: 'b' } },
      ]);
      const linked = await send(s, 'POST', experimentsPath(s, `${running.id}/create_exposure_cohort_for_experiment/`), {});
      expect(linked.status).toBe(200);
      await Promise.allSettled([0, 1].map(() => s.runtime.experiments.service.createExposureCohort(s.credentials.project_id, draft.id, actor)));
      const types = new Set((await s.runtime.log.readAll()).map((e) => e.type));
      for (const t of ['ExperimentCreated', 'ExperimentUpdated', 'ExperimentDeleted', 'ExperimentCreationAbandoned', 'ExperimentExposureCohortSet', 'CohortCreated', 'CohortDeleted'])
        expect(types.has(t), t).toBe(true);
    } finally {
      await s.close();
    }

    const verified = cli(s.dataDir, ['verify', '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    const report = JSON.parse(verified.stdout);
    expect(report.ok).toBe(true);
    const names = report.rows.map((r: { projection: string }) => r.projection);
    expect(names).toEqual(expect.arrayContaining(['experiments', 'cohorts', 'feature_flags', 'ingestion']));

    const db = new Database(join(s.dataDir, 'readmodels.sqlite'));
    db.prepare('UPDATE experiments SET name = ? WHERE id = (SELECT min(id) FROM experiments)').run('tampered');
    db.close();
    const broken = cli(s.dataDir, ['verify']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/DIFF experiments/);
  });
});
