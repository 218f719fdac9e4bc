import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { json } from '../../support/json';

let s: TestServer;
let otherOrg: string;
let secondProject: number;

beforeAll(async () => {
  s = await startTestServer({
    beforeListen: (app) =>
      app.get('/api/projects/:project_id/boom/', { config: { scope: 'project:read' } }, async () => {
        throw new Error('secret internal detail');
      }),
  });
  const { access, queries } = s.runtime;
  secondProject = (await access.createProject(s.credentials.organization_id, 'Second', { type: 'system' })).id;
  await access.createProject(s.credentials.organization_id, 'Third', { type: 'system' });
  otherOrg = await access.createOrganization('Other', { type: 'system' });
  const outsider = await access.createUser({ email: 'o@example.com', firstName: 'O', lastName: 'X' }, { type: 'system' });
  await access.addMember(otherOrg, outsider, 'owner', { type: 'system' });
  await access.createProject(otherOrg, 'Theirs', { type: 'system' });
  void queries;
});
afterAll(() => s.close());

const key = async (scopes: string[], projects?: number[]) => {
  const user = (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!;
  return s.runtime.access
    .createPersonalKey({ userId: user.id, label: 't', scopes: scopes as never, scopedProjects: projects ?? null }, { type: 'system' })
    .then((k) => k.key);
};

async function expectError(res: Response, status: number, code: string, detail?: RegExp) {
  expect(res.status).toBe(status);
  const body = await json(res);
  expect(Object.keys(body).sort()).toEqual(['attr', 'code', 'detail', 'type']);
  expect(body.code).toBe(code);
  if (detail) expect(body.detail).toMatch(detail);
  return body;
}

describe('authentication and authorization over HTTP', () => {
  it('health needs no key', async () => {
    const res = await fetch(`${s.url}/_health`);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ status: 'ok' });
  });

  it('401 not_authenticated without a key', async () => {
    const body = await expectError(await s.api('/api/projects/', { key: null }), 401, 'not_authenticated');
    expect(body.type).toBe('authentication_error');
  });

  it('401 authentication_failed for an unknown or revoked key', async () => {
    await expectError(await s.api('/api/projects/', { key: 'phx_doesnotexist' }), 401, 'authentication_failed');
    const k = await key(['*']);
    expect((await s.api('/api/projects/', { key: k })).status).toBe(200);
    const id = (await s.runtime.queries.access.keys()).at(-1)!.id;
    await s.runtime.access.revokePersonalKey(id, { type: 'system' });
    await expectError(await s.api('/api/projects/', { key: k }), 401, 'authentication_failed');
  });

  it('403 permission_denied naming the missing scope; write implies read', async () => {
    const k = await key(['experiment:read']);
    await expectError(await s.api('/api/projects/', { key: k }), 403, 'permission_denied', /'project:read'/);
    await expectError(await s.api(`/api/organizations/${s.credentials.organization_id}/`, { key: k }), 403, 'permission_denied', /'organization:read'/);
    const w = await key(['project:write']);
    expect((await s.api('/api/projects/', { key: w })).status).toBe(200);
  });

  it('a key limited to some projects sees only those', async () => {
    const k = await key(['project:read'], [secondProject]);
    const list = await json(await s.api('/api/projects/', { key: k }));
    expect(list.results.map((p: { id: number }) => p.id)).toEqual([secondProject]);
    expect((await s.api(`/api/projects/${secondProject}/`, { key: k })).status).toBe(200);
    await expectError(await s.api(`/api/projects/${s.credentials.project_id}/`, { key: k }), 403, 'permission_denied');
  });

  it('projects and organizations of other organizations are forbidden, unknown ones not found', async () => {
    const theirs = (await s.runtime.queries.access.firstProjectOf(otherOrg))!.id;
    await expectError(await s.api(`/api/projects/${theirs}/`), 403, 'permission_denied');
    await expectError(await s.api(`/api/organizations/${otherOrg}/`), 403, 'permission_denied');
    await expectError(await s.api('/api/projects/999/'), 404, 'not_found');
    await expectError(await s.api('/api/projects/abc/'), 404, 'not_found');
    await expectError(await s.api('/api/organizations/00000000-0000-4000-8000-000000000000/'), 404, 'not_found');
  });

  it('serves projects, @current and the organization', async () => {
    const p = await json(await s.api(`/api/projects/${s.credentials.project_id}`));
    expect(p).toMatchObject({ id: s.credentials.project_id, api_token: s.credentials.project_api_key, organization: s.credentials.organization_id });
    expect((await json(await s.api('/api/projects/@current/'))).id).toBe(s.credentials.project_id);
    const org = await json(await s.api(`/api/organizations/${s.credentials.organization_id}/`));
    expect(org.id).toBe(s.credentials.organization_id);
    expect(org.projects.map((x: { id: number }) => x.id)).toEqual([1, 2, 3]);
  });

  it('paginates with the offset envelope and absolute URLs', async () => {
    const first = await json(await s.api('/api/projects/?limit=1'));
    expect(first.count).toBe(3);
    expect(first.results).toHaveLength(1);
    expect(first.previous).toBeNull();
    expect(first.next).toBe(`${s.url}/api/projects/?limit=1&offset=1`);
    const second = await json(await fetch(first.next, { headers: { authorization: `Bearer ${s.credentials.personal_api_key}` } }));
    expect(second.results[0].id).toBe(2);
    expect(second.previous).toBe(`${s.url}/api/projects/?limit=1&offset=0`);
    const last = await json(await s.api('/api/projects/?limit=2&offset=2'));
    expect(last.next).toBeNull();
    const bad = await expectError(await s.api('/api/projects/?limit=5000'), 400, 'invalid_input');
    expect(bad.attr).toBe('limit');
    expect((await expectError(await s.api('/api/projects/?offset=x'), 400, 'invalid_input')).attr).toBe('offset');
  });

  it('unknown routes are 404 in the error shape; crashes are 500 without internals', async () => {
    await expectError(await s.api('/api/nothing/'), 404, 'not_found');
    const body = await expectError(await s.api(`/api/projects/${s.credentials.project_id}/boom/`), 500, 'error');
    expect(JSON.stringify(body)).not.toMatch(/secret internal detail|at /);
  });

  // Last: it makes the bootstrap user a member of a second organization.
  it('an organization shows a limited key only its projects; one holding none of them is forbidden', async () => {
    const system = { type: 'system' } as const;
    const k = await key(['organization:read', 'project:read'], [secondProject]);
    const org = await json(await s.api(`/api/organizations/${s.credentials.organization_id}/`, { key: k }));
    expect(org.projects.map((p: { id: number }) => p.id)).toEqual([secondProject]);
    expect(JSON.stringify(org)).not.toContain(s.credentials.project_api_key);
    const current = await json(await s.api('/api/organizations/@current/', { key: k }));
    expect(current.id).toBe(s.credentials.organization_id);

    const user = (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!;
    const second = await s.runtime.access.createOrganization('Second', system);
    await s.runtime.access.addMember(second, user.id, 'member', system);
    await s.runtime.access.createProject(second, 'Elsewhere', system);
    await expectError(await s.api(`/api/organizations/${second}/`, { key: k }), 403, 'permission_denied');
    expect((await s.api(`/api/organizations/${second}/`)).status).toBe(200);
  });
});
