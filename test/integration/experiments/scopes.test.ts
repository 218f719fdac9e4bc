import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { createExperiment, expectError, experimentsPath, keyWith, send } from './helpers';

// Scopes (spec §5, and the choices for what it leaves open): experiment:read for list, retrieve,
// results, secondary_results, requires_flag_implementation; experiment:write for create, update,
// delete and create_exposure_cohort_for_experiment; cohort:read for the cohorts listing.
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('scopes', () => {
  it('experiment:read reads, experiment:write writes; neither gives cohorts', async () => {
    const e = await createExperiment(s, { name: 'Scoped', feature_flag_key: 'scoped', start_date: '2024-01-01T00:00:00Z' });
    const reader = await keyWith(s, ['experiment:read']);
    const writer = await keyWith(s, ['experiment:write']);
    const other = await keyWith(s, ['feature_flag:read']);
    for (const path of ['', `${e.id}/`, `${e.id}/results/`, `${e.id}/secondary_results/`, 'requires_flag_implementation/']) {
      const res = await s.api(experimentsPath(s, path), { key: other });
      await expectError(res, 403, "API key missing required scope 'experiment:read'");
      expect((await s.api(experimentsPath(s, path), { key: reader })).status).not.toBe(403);
    }
    const writes: [string, string, unknown][] = [
      ['POST', '', { name: 'n', feature_flag_key: 'scoped-2' }],
      ['PATCH', `${e.id}/`, { name: 'n' }],
      ['DELETE', `${e.id}/`, undefined],
      ['POST', `${e.id}/create_exposure_cohort_for_experiment/`, {}],
    ];
    for (const [method, path, body] of writes)
      await expectError(await send(s, method, experimentsPath(s, path), body, reader), 403, "API key missing required scope 'experiment:write'");
    expect((await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { name: 'by writer' }, writer)).status).toBe(200);
    expect((await s.api(experimentsPath(s), { key: writer })).status).toBe(200); // write implies read
    await expectError(await s.api(`/api/projects/${s.credentials.project_id}/cohorts/`, { key: writer }), 403, "API key missing required scope 'cohort:read'");
    const anonymous = await s.api(experimentsPath(s), { key: null });
    await expectError(anonymous, 401, 'Authentication credentials were not provided.');
  });
});
