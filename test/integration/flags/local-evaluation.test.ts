import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { createFlag, ingest } from './helpers';

// Definitions for SDK local evaluation: what posthog-node polls with its personal key and ETag.
let s: TestServer;
let flagId: number;
beforeAll(async () => {
  s = await startTestServer();
  await ingest(s, [{ event: '$groupidentify', distinct_id: 'g', properties: { $group_type: 'company', $group_key: 'acme' } }]);
  flagId = (await createFlag(s, { key: 'local-a', name: 'A', filters: { groups: [{ properties: [], rollout_percentage: 40 }], payloads: { true: { x: 1 } } } })).id;
  await createFlag(s, { key: 'local-group', filters: { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 100 }] } });
  const deleted = await createFlag(s, { key: 'local-deleted', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  expect((await s.api(`/api/projects/${s.credentials.project_id}/feature_flags/${deleted.id}/`, { method: 'DELETE' })).status).toBe(204);
});
afterAll(() => s.close());

const definitions = (path: string, init: RequestInit & { key?: string | null; token?: string } = {}) => {
  const { token = s.credentials.project_api_key, ...rest } = init;
  return s.api(`${path}?token=${encodeURIComponent(token)}&send_cohorts`, rest);
};
const scopedKey = async (scopes: string[]) => {
  const user = (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!;
  return (await s.runtime.access.createPersonalKey({ userId: user.id, label: 'local', scopes: scopes as never }, { type: 'system' })).key;
};

describe.each(['/flags/definitions', '/api/feature_flag/local_evaluation/'])('GET %s', (path) => {
  it('answers flags, group_type_mapping and cohorts with an ETag; deleted flags are left out', async () => {
    const res = await definitions(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{40}"$/);
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual(['cohorts', 'flags', 'group_type_mapping']);
    expect(body.group_type_mapping).toEqual({ '0': 'company' });
    expect(body.cohorts).toEqual({});
    expect(body.flags.map((f: { key: string }) => f.key)).toEqual(['local-a', 'local-group']);
    expect(body.flags[0]).toMatchObject({
      id: flagId,
      key: 'local-a',
      name: 'A',
      active: true,
      ensure_experience_continuity: false,
      filters: { groups: [{ rollout_percentage: 40 }], payloads: { true: '{"x":1}' } },
    });
    expect(body.flags[1].filters.aggregation_group_type_index).toBe(0);
  });

  it('304 with an empty body for a matching If-None-Match, 200 for a stale one', async () => {
    const etag = (await definitions(path)).headers.get('etag')!;
    const same = await definitions(path, { headers: { 'if-none-match': etag } });
    expect(same.status).toBe(304);
    expect(await same.text()).toBe('');
    expect((await definitions(path, { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
  });

  it('auth: 401 without a key, 403 without feature_flag:read, 401 for an unknown project token', async () => {
    expect((await definitions(path, { key: null })).status).toBe(401);
    const noScope = await scopedKey(['experiment:read']);
    expect((await definitions(path, { key: noScope })).status).toBe(403);
    expect((await definitions(path, { key: await scopedKey(['feature_flag:read']) })).status).toBe(200);
    expect((await definitions(path, { token: 'phc_unknown' })).status).toBe(401);
  });
});

describe('ETag follows changes', () => {
  it('changes after a flag update and after a new flag, so SDKs re-download', async () => {
    const path = '/flags/definitions';
    const before = (await definitions(path)).headers.get('etag')!;
    const patched = await s.api(`/api/projects/${s.credentials.project_id}/feature_flags/${flagId}/`, {
      method: 'PATCH',
      body: JSON.stringify({ filters: { groups: [{ properties: [], rollout_percentage: 41 }] } }),
    });
    expect(patched.status).toBe(200);
    const res = await definitions(path, { headers: { 'if-none-match': before } });
    expect(res.status).toBe(200);
    const afterUpdate = res.headers.get('etag')!;
    expect(afterUpdate).not.toBe(before);
    expect((await json(res)).flags[0].filters.groups[0].rollout_percentage).toBe(41);

    await createFlag(s, { key: 'local-new', filters: { groups: [{ properties: [], rollout_percentage: 1 }] } });
    const afterCreate = (await definitions(path, { headers: { 'if-none-match': afterUpdate } }));
    expect(afterCreate.status).toBe(200);
    expect(afterCreate.headers.get('etag')).not.toBe(afterUpdate);
  });
});
