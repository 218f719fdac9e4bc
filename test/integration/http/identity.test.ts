import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../../streams';
import { startTestServer, type TestServer } from '../../support/server';

/** Issue 15 item 3: who a personal key is, as SDKs and tools ask it (`/api/users/@me/`, `@current`). */
let s: TestServer;
const system = { type: 'system' } as const;

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const get = async (path: string, key?: string | null) => {
  const res = await s.api(path, { key });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

async function keyWith(scopes: string[], scopedProjects: number[] | null = null) {
  const user = (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!.id;
  return (await s.runtime.access.createPersonalKey({ userId: user, label: 'identity', scopes: scopes as Scope[], scopedProjects }, system)).key;
}

describe('GET /api/users/@me/', () => {
  it("answers the key's user, its organization and project and its scopes, in PostHog's shape", async () => {
    const { status, body } = await get('/api/users/@me/');
    expect(status).toBe(200);
    const user = (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!;
    expect(body).toMatchObject({
      id: user.id,
      uuid: user.uuid,
      distinct_id: user.distinct_id,
      email: user.email,
      first_name: user.first_name,
      pending_email: null,
      is_staff: false,
      organization: { id: s.credentials.organization_id },
      organizations: [{ id: s.credentials.organization_id }],
      team: { id: s.credentials.project_id, api_token: s.credentials.project_api_key, organization: s.credentials.organization_id },
      scopes: ['*'],
    });
  });

  it('shows a key limited to one project that project and only its own scopes', async () => {
    const other = await s.runtime.access.createProject(s.credentials.organization_id, 'second project', system);
    const key = await keyWith(['user:read', 'feature_flag:read'], [other.id]);
    const { status, body } = await get('/api/users/@me/', key);
    expect(status).toBe(200);
    expect(body.team).toMatchObject({ id: other.id, api_token: other.apiToken });
    expect(body.scopes).toEqual(['user:read', 'feature_flag:read']);
    // And `@current` means the same project for that key.
    expect((await get('/api/projects/@current/', await keyWith(['project:read'], [other.id]))).body.id).toBe(other.id);
  });

  it('needs a key (401) with user:read (403), in the error shape', async () => {
    expect(await get('/api/users/@me/', null)).toMatchObject({ status: 401, body: { type: 'authentication_error', code: 'not_authenticated', attr: null } });
    const lacking = await keyWith(['feature_flag:read']);
    expect(await get('/api/users/@me/', lacking)).toMatchObject({
      status: 403,
      body: { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'user:read'" },
    });
  });
});

describe('GET /api/organizations/@current/', () => {
  it("answers the key's organization with its projects", async () => {
    const { status, body } = await get('/api/organizations/@current/');
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: s.credentials.organization_id, projects: expect.arrayContaining([expect.objectContaining({ id: s.credentials.project_id })]) });
    expect(body.teams).toEqual(body.projects);
  });
});
