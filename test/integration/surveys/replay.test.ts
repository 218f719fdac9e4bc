import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { json } from '../../support/json';
import { startTestServer } from '../../support/server';
import { ingestEvents, send } from '../experiments/helpers';

// `verify` rebuilds every read model from the log and compares digests: surveys (patched, deleted),
// their response counts, and early access features (linked, patched, deleted, one whose creation
// crashed before its flag) must come out byte for byte the same.
describe('replay of surveys and early access features', () => {
  it('verify reproduces them exactly; a tampered survey row is caught', async () => {
    const s = await startTestServer();
    const base = `/api/projects/${s.credentials.project_id}`;
    const created = async (path: string, body: Record<string, unknown>) => {
      const res = await send(s, 'POST', `${base}/${path}/`, body);
      expect(res.status).toBe(201);
      return json(res);
    };
    try {
      const survey = await created('surveys', { name: 'Replayed', type: 'popover', questions: [{ type: 'open', question: 'Why?' }] });
      await send(s, 'PATCH', `${base}/surveys/${survey.id}/`, { start_date: '2026-01-01T00:00:00Z', appearance: { backgroundColor: '#fff' } });
      const targeting = { groups: [{ properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }], rollout_percentage: 100 }] };
      await send(s, 'PATCH', `${base}/surveys/${survey.id}/`, { targeting_flag_filters: targeting });
      await send(s, 'PATCH', `${base}/surveys/${survey.id}/`, { remove_targeting_flag: true });
      const doomed = await created('surveys', { name: 'Doomed', type: 'api', targeting_flag_filters: targeting });
      await send(s, 'DELETE', `${base}/surveys/${doomed.id}/`);
      await ingestEvents(s, [
        { event: 'survey sent', distinct_id: 'a', properties: { $survey_id: survey.id, $survey_submission_id: 'one', $survey_response: 'x' } },
        { event: 'survey sent', distinct_id: 'b', properties: { $survey_id: survey.id, $survey_response: 'y' } },
      ]);

      const feature = await created('early_access_feature', { name: 'Replay beta', stage: 'beta' });
      await send(s, 'PATCH', `${base}/early_access_feature/${feature.id}/`, { stage: 'general-availability', rollout_to_all: true });
      const gone = await created('early_access_feature', { name: 'Replay gone', stage: 'alpha' });
      await send(s, 'DELETE', `${base}/early_access_feature/${gone.id}/`);

      const types = new Set((await s.runtime.log.readAll()).map((e) => e.type));
      for (const t of ['SurveyCreated', 'SurveyUpdated', 'SurveyTargetingFlagChanged', 'SurveyDeleted', 'EarlyAccessFeatureCreated', 'EarlyAccessFeatureUpdated', 'EarlyAccessFeatureDeleted'])
        expect(types.has(t), t).toBe(true);
    } finally {
      await s.close();
    }

    const verified = cli(s.dataDir, ['verify', '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    const report = JSON.parse(verified.stdout);
    expect(report.ok).toBe(true);
    expect(report.rows.map((r: { projection: string }) => r.projection)).toEqual(expect.arrayContaining(['surveys', 'early_access']));

    const db = new Database(join(s.dataDir, 'readmodels.sqlite'));
    db.prepare("UPDATE surveys SET name = 'tampered'").run();
    db.close();
    const broken = cli(s.dataDir, ['verify']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/DIFF surveys/);
  });
});
