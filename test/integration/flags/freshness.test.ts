import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { createFlag, evaluate } from './helpers';

// Definitions are served from memory: every management change must reach /flags at once, and one
// project's flags must never answer for another project's key.
let s: TestServer;
let other: { id: number; apiToken: string };
beforeAll(async () => {
  s = await startTestServer();
  other = await s.runtime.access.createProject(s.credentials.organization_id, 'Other', { type: 'system' });
});
afterAll(() => s.close());

const rollout = (pct: number) => ({ groups: [{ properties: [], rollout_percentage: pct }] });
const flagsFor = async (token: string) => (await evaluate(s, '/flags/?v=2', { token, distinct_id: 'fresh-user' })).flags;

describe('changes reach evaluation immediately (read-your-writes)', () => {
  it('update, deactivate, reactivate and delete are visible on the next request', async () => {
    const mine = s.credentials.project_api_key;
    const flag = await createFlag(s, { key: 'moving', filters: rollout(0) });
    expect((await flagsFor(mine)).moving).toMatchObject({ enabled: false, metadata: { version: 1 } });
    const url = `/api/projects/${s.credentials.project_id}/feature_flags/${flag.id}/`;
    const patch = async (body: Record<string, unknown>) => expect((await s.api(url, { method: 'PATCH', body: JSON.stringify(body) })).status).toBe(200);

    await patch({ filters: rollout(100) });
    expect((await flagsFor(mine)).moving).toMatchObject({ enabled: true, metadata: { version: 2 } });
    await patch({ active: false });
    expect((await flagsFor(mine)).moving).toMatchObject({ enabled: false, reason: { code: 'flag_disabled' } });
    await patch({ active: true });
    expect((await flagsFor(mine)).moving.enabled).toBe(true);
    expect((await s.api(url, { method: 'DELETE' })).status).toBe(204);
    expect(await flagsFor(mine)).not.toHaveProperty('moving');
  });
});

describe('projects are isolated', () => {
  it('the same key lives in two projects, each answered only with its own project key', async () => {
    await createFlag(s, { key: 'shared-key', filters: rollout(100) });
    const res = await s.api(`/api/projects/${other.id}/feature_flags/`, { method: 'POST', body: JSON.stringify({ key: 'shared-key', filters: rollout(0) }) });
    expect(res.status).toBe(201);
    const res2 = await s.api(`/api/projects/${other.id}/feature_flags/`, { method: 'POST', body: JSON.stringify({ key: 'only-other', filters: rollout(100) }) });
    expect(res2.status).toBe(201);

    const mine = await flagsFor(s.credentials.project_api_key);
    expect(mine['shared-key'].enabled).toBe(true);
    expect(mine).not.toHaveProperty('only-other');
    const theirs = await flagsFor(other.apiToken);
    expect(Object.keys(theirs).sort()).toEqual(['only-other', 'shared-key']);
    expect(theirs['shared-key'].enabled).toBe(false);

    const list = await json(await s.api(`/api/projects/${other.id}/feature_flags/`));
    expect(list.results.map((f: { key: string }) => f.key).sort()).toEqual(['only-other', 'shared-key']);
  });

  it('local evaluation refuses a personal key limited to another project', async () => {
    const user = (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!;
    const { key } = await s.runtime.access.createPersonalKey(
      { userId: user.id, label: 'other only', scopes: ['feature_flag:read'] as never, scopedProjects: [other.id] },
      { type: 'system' },
    );
    expect((await s.api(`/flags/definitions?token=${s.credentials.project_api_key}`, { key })).status).toBe(403);
    const allowed = await s.api(`/flags/definitions?token=${other.apiToken}`, { key });
    expect(allowed.status).toBe(200);
    expect((await json(allowed)).flags.map((f: { key: string }) => f.key).sort()).toEqual(['only-other', 'shared-key']);
  });
});
