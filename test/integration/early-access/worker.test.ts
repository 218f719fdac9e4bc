import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { send } from '../experiments/helpers';

// The real server folds in a worker thread: read-your-writes (the feature linked to its flag, the
// survey with its internal flag) must hold there too.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ env: { PROJECTIONS_IN_WORKER: 'true' } });
  await s.runtime.ready;
});
afterAll(() => s.close());

describe('with projections in the worker thread', () => {
  it('a created feature and survey answer with their flags at once', async () => {
    const base = `/api/projects/${s.credentials.project_id}`;
    const feature = await send(s, 'POST', `${base}/early_access_feature/`, { name: 'Threaded', stage: 'beta' });
    expect(feature.status).toBe(201);
    expect((await json(feature)).feature_flag.key).toBe('threaded');
    const survey = await send(s, 'POST', `${base}/surveys/`, { name: 'Threaded', type: 'popover', start_date: '2026-01-01T00:00:00Z' });
    expect(survey.status).toBe(201);
    expect((await json(survey)).internal_targeting_flag.active).toBe(true);
    const listed = await json(await fetch(`${s.url}/api/early_access_features/?token=${s.credentials.project_api_key}`));
    expect(listed.earlyAccessFeatures.map((f: { flagKey: string }) => f.flagKey)).toEqual(['threaded']);
  });
});
