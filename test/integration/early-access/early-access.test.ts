import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { expectError, keyWith, send } from '../experiments/helpers';
import { createFlag, evaluate, ingest } from '../flags/helpers';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const featuresPath = (rest = '') => `/api/projects/${s.credentials.project_id}/early_access_feature/${rest}`;
const flagPath = (id: number) => `/api/projects/${s.credentials.project_id}/feature_flags/${id}/`;
const publicFeatures = (query: string, origin = 'https://app.example') => fetch(`${s.url}/api/early_access_features/?${query}`, { headers: { origin } });

async function create(body: Record<string, unknown>) {
  const res = await send(s, 'POST', featuresPath(), body);
  const out = await json(res);
  expect(res.status, JSON.stringify(out)).toBe(201);
  return out;
}

const enrollment = (key: string) => [{ properties: [{ key: `$feature_enrollment/${key}`, type: 'person', operator: 'exact', value: ['true'] }], rollout_percentage: 100 }];

describe('early access management API', () => {
  it('creating a feature creates its flag: key from the name, nobody released, enrollment on in beta', async () => {
    const created = await create({ name: 'Dark Mode!', description: 'Night', stage: 'beta', documentation_url: 'https://docs.example/dark', payload: { x: 1 } });
    expect(created).toMatchObject({ name: 'Dark Mode!', description: 'Night', stage: 'beta', documentation_url: 'https://docs.example/dark', payload: { x: 1 }, assignee: null });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.feature_flag).toMatchObject({ key: 'dark-mode', name: 'Feature Flag for Early Access Feature Dark Mode!', active: true, deleted: false });
    expect(created.feature_flag.filters.groups).toEqual([{ properties: [], rollout_percentage: 0, variant: null }]);
    expect(created.feature_flag.filters.super_groups).toEqual(enrollment('dark-mode'));

    expect(await json(await s.api(featuresPath(`${created.id}/`)))).toEqual(created);
    const list = await json(await s.api(featuresPath()));
    expect(list.results.map((f: { id: string }) => f.id)).toContain(created.id);
  });

  it('a concept feature has no enrollment until it moves to an enrolling stage, and loses it when it leaves', async () => {
    const f = await create({ name: 'Coming soon', stage: 'concept' });
    expect(f.feature_flag.filters.super_groups).toBeUndefined();
    const alpha = await json(await send(s, 'PATCH', featuresPath(`${f.id}/`), { stage: 'alpha' }));
    expect(alpha.stage).toBe('alpha');
    expect(alpha.feature_flag.filters.super_groups).toEqual(enrollment('coming-soon'));
    const archived = await json(await send(s, 'PATCH', featuresPath(`${f.id}/`), { stage: 'archived' }));
    expect(archived.feature_flag.filters.super_groups).toBeUndefined();
  });

  it('general availability with rollout_to_all releases the flag to everyone and drops enrollment', async () => {
    const f = await create({ name: 'Shipping', stage: 'beta' });
    const ga = await json(await send(s, 'PATCH', featuresPath(`${f.id}/`), { stage: 'general-availability', rollout_to_all: true }));
    expect(ga.stage).toBe('general-availability');
    expect(ga.feature_flag.filters.groups).toEqual([{ properties: [], rollout_percentage: 100 }]);
    expect(ga.feature_flag.filters.super_groups).toBeUndefined();
    const flags = await evaluate(s, '/flags/?v=2', { distinct_id: 'anyone' });
    expect(flags.flags.shipping.enabled).toBe(true);
  });

  it('deleting a feature keeps its flag, without enrollment', async () => {
    const f = await create({ name: 'Goner', stage: 'beta' });
    expect((await send(s, 'DELETE', featuresPath(`${f.id}/`))).status).toBe(204);
    await expectError(await s.api(featuresPath(`${f.id}/`)), 404);
    const flag = await json(await s.api(flagPath(f.feature_flag.id)));
    expect(flag.deleted).toBe(false);
    expect(flag.filters.super_groups).toBeUndefined();
    await expectError(await send(s, 'DELETE', featuresPath(`${f.id}/`)), 404);
  });

  it('links an existing boolean person flag, and refuses one already owned, multivariate or group-based', async () => {
    const plain = await createFlag(s, { key: 'existing-flag', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
    const linked = await create({ name: 'Linked one', stage: 'beta', feature_flag_id: plain.id });
    expect(linked.feature_flag).toMatchObject({ id: plain.id, key: 'existing-flag' });
    expect(linked.feature_flag.filters.super_groups).toEqual(enrollment('existing-flag'));
    await expectError(await send(s, 'POST', featuresPath(), { name: 'Again', stage: 'beta', feature_flag_id: plain.id }), 400, /already has a feature/, 'feature_flag_id');
    const multi = await createFlag(s, {
      key: 'multi-flag',
      filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] } },
    });
    await expectError(await send(s, 'POST', featuresPath(), { name: 'Multi', stage: 'beta', feature_flag_id: multi.id }), 400, /Multivariate/, 'feature_flag_id');
    await expectError(await send(s, 'POST', featuresPath(), { name: 'Missing', stage: 'beta', feature_flag_id: 987654 }), 400, /does not exist/, 'feature_flag_id');
  });

  it('refuses bad input with the error shape and appends nothing', async () => {
    await createFlag(s, { key: 'taken-key' });
    const before = await s.runtime.log.head();
    await expectError(await send(s, 'POST', featuresPath(), { stage: 'beta' }), 400, 'This field is required.', 'name');
    await expectError(await send(s, 'POST', featuresPath(), { name: 'No stage' }), 400, 'This field is required.', 'stage');
    await expectError(await send(s, 'POST', featuresPath(), { name: 'Bad stage', stage: 'gamma' }), 400, /not a valid choice/, 'stage');
    await expectError(await send(s, 'POST', featuresPath(), { name: 'x'.repeat(201), stage: 'beta' }), 400, /200 characters/, 'name');
    await expectError(await send(s, 'POST', featuresPath(), { name: 'Taken key', stage: 'beta' }), 400, 'There is already a feature flag with this key.', 'name');
    await expectError(await send(s, 'POST', featuresPath(), { name: '!!!', stage: 'beta' }), 400, /derive a feature flag key/, 'name');
    await expectError(await send(s, 'POST', featuresPath(), { name: 'Url', stage: 'beta', documentation_url: 'not a url' }), 400, 'Enter a valid URL.', 'documentation_url');
    await expectError(await send(s, 'POST', featuresPath(), { name: 'Payload', stage: 'beta', payload: [1] }), 400, /JSON object/, 'payload');
    await expectError(await send(s, 'POST', featuresPath(), { name: 'Assignee', stage: 'beta', assignee: { type: 'team' } }), 400, /assignee/, 'assignee');
    await expectError(await s.api(featuresPath('not-a-uuid/')), 404);
    expect(await s.runtime.log.head()).toBe(before);
  });

  it('requires early_access_feature:read to read and :write to write', async () => {
    const reader = await keyWith(s, ['early_access_feature:read']);
    const other = await keyWith(s, ['survey:write']);
    expect((await s.api(featuresPath(), { key: reader })).status).toBe(200);
    await expectError(await s.api(featuresPath(), { key: other }), 403);
    await expectError(await send(s, 'POST', featuresPath(), { name: 'Scoped', stage: 'beta' }, reader), 403);
  });
});

describe('public early access endpoint (posthog-js getEarlyAccessFeatures)', () => {
  it('serves beta features by default, the stages asked for otherwise, with flag keys and CORS', async () => {
    const beta = await create({ name: 'Public beta', stage: 'beta', description: 'B', documentation_url: 'https://docs.example/b' });
    const alpha = await create({ name: 'Public alpha', stage: 'alpha' });
    const res = await publicFeatures(`token=${s.credentials.project_api_key}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const out = await json(res);
    const mine = out.earlyAccessFeatures.find((f: { id: string }) => f.id === beta.id);
    expect(mine).toEqual({ id: beta.id, name: 'Public beta', description: 'B', stage: 'beta', documentationUrl: 'https://docs.example/b', flagKey: 'public-beta', payload: {}, assignee: null });
    expect(out.earlyAccessFeatures.map((f: { id: string }) => f.id)).not.toContain(alpha.id);
    expect(out.earlyAccessFeatures.every((f: { stage: string }) => f.stage === 'beta')).toBe(true);

    const both = await json(await publicFeatures(`token=${s.credentials.project_api_key}&stage=alpha&stage=beta`));
    const ids = both.earlyAccessFeatures.map((f: { id: string }) => f.id);
    expect(ids).toContain(alpha.id);
    expect(ids).toContain(beta.id);
    expect((await publicFeatures(`token=${s.credentials.project_api_key}&stage=omega`)).status).toBe(400);
  });

  it('answers a preflight, and a missing or unknown token with 401 and CORS headers', async () => {
    const pre = await fetch(`${s.url}/api/early_access_features/`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' } });
    expect(pre.status).toBe(200);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const bad = await publicFeatures('token=phc_unknown');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect((await json(bad)).code).toBe('invalid_api_key');
    expect((await json(await publicFeatures(''))).code).toBe('missing_api_key');
  });
});

describe('enrollment', () => {
  it("posthog-js's $feature_enrollment_update turns the flag on for that person only, and opting out turns it off", async () => {
    const f = await create({ name: 'Enroll me', stage: 'beta' });
    const key = f.feature_flag.key;
    const update = (distinctId: string, enrolled: boolean) => ({
      event: '$feature_enrollment_update',
      distinct_id: distinctId,
      properties: { $feature_flag: key, $feature_enrollment: enrolled, $feature_enrollment_stage: 'beta', $early_access_feature_name: 'Enroll me', $set: { [`$feature_enrollment/${key}`]: enrolled } },
    });
    await ingest(s, [update('early-adopter', true), { event: '$pageview', distinct_id: 'bystander' }]);
    expect((await evaluate(s, '/flags/?v=2', { distinct_id: 'early-adopter' })).flags[key].enabled).toBe(true);
    expect((await evaluate(s, '/flags/?v=2', { distinct_id: 'bystander' })).flags[key].enabled).toBe(false);
    // Before ingestion, posthog-js sends the choice as a person property override: it counts too.
    expect((await evaluate(s, '/flags/?v=2', { distinct_id: 'newcomer', person_properties: { [`$feature_enrollment/${key}`]: true } })).flags[key].enabled).toBe(true);

    await ingest(s, [update('early-adopter', false)]);
    expect((await evaluate(s, '/flags/?v=2', { distinct_id: 'early-adopter' })).flags[key].enabled).toBe(false);
  });
});
