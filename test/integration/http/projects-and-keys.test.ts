import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';

/** Issue 27 item 7: projects and personal API keys managed over HTTP, as PostHog's routes do it. */
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

async function call(method: string, path: string, body?: unknown, key?: string | null) {
  const res = await s.api(path, { method, key, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, any> };
}

/** The personal keys a list answers: the list route answers an array, not an object. */
async function listKeys(key?: string | null): Promise<{ status: number; keys: Record<string, unknown>[] }> {
  const res = await s.api('/api/personal_api_keys/', { method: 'GET', key });
  const body: unknown = await res.json();
  if (!Array.isArray(body)) throw new Error(`the key list answered ${JSON.stringify(body)}`);
  return { status: res.status, keys: body as Record<string, unknown>[] };
}

describe('projects', () => {
  it('POST /api/projects/ creates a project in the current organization that capture then accepts', async () => {
    const created = await call('POST', '/api/projects/', { name: 'Marketing site' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Marketing site', organization: s.credentials.organization_id });
    expect(created.body.api_token).toMatch(/^phc_/);
    const listed = await call('GET', '/api/projects/');
    expect(listed.body.results.map((p: { name: string }) => p.name)).toContain('Marketing site');
    const capture = await fetch(`${s.url}/capture/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: created.body.api_token, event: 'hello', distinct_id: 'x' }),
    });
    expect(capture.status).toBe(200);
  });

  it('PATCH renames; a blank name is a 400 and changes nothing', async () => {
    const { body: p } = await call('POST', '/api/projects/', { name: 'Old name' });
    const renamed = await call('PATCH', `/api/projects/${p.id}/`, { name: 'New name' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('New name');
    const blank = await call('PATCH', `/api/projects/${p.id}/`, { name: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ type: 'validation_error', attr: 'name' });
    expect((await call('GET', `/api/projects/${p.id}/`)).body.name).toBe('New name');
    // Settings and name in one PATCH.
    const both = await call('PATCH', `/api/projects/${p.id}/`, { name: 'Both', surveys_opt_in: true });
    expect(both.body).toMatchObject({ name: 'Both', surveys_opt_in: true });
  });

  it('a blank name is refused, a key limited to projects may not create one, and project:write is required', async () => {
    expect((await call('POST', '/api/projects/', { name: '' })).body).toMatchObject({ type: 'validation_error', attr: 'name' });
    const limited = await call('POST', '/api/personal_api_keys/', { label: 'limited', scopes: ['*'], scoped_teams: [s.credentials.project_id] });
    const refused = await call('POST', '/api/projects/', { name: 'nope' }, limited.body.value);
    expect(refused.status).toBe(403);
    const reader = await call('POST', '/api/personal_api_keys/', { label: 'reader', scopes: ['project:read'] });
    const denied = await call('POST', '/api/projects/', { name: 'nope' }, reader.body.value);
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toContain("'project:write'");
  });
});

describe('personal API keys', () => {
  it('create shows the value once; the key works; list and get show it masked', async () => {
    const created = await call('POST', '/api/personal_api_keys/', { label: 'teammate', scopes: ['feature_flag:read'] });
    expect(created.status).toBe(201);
    const value: string = created.body.value;
    expect(value).toMatch(/^phx_/);
    expect(created.body).toMatchObject({ label: 'teammate', scopes: ['feature_flag:read'], scoped_teams: null, mask_value: `${value.slice(0, 4)}...${value.slice(-4)}` });
    expect((await call('GET', `/api/projects/${s.credentials.project_id}/feature_flags/`, undefined, value)).status).toBe(200);
    // Its scope is all it has.
    expect((await call('GET', `/api/projects/${s.credentials.project_id}/experiments/`, undefined, value)).status).toBe(403);

    const list = await listKeys();
    expect(list.status).toBe(200);
    const listed = list.keys;
    const mine = listed.find((k) => k.id === created.body.id)!;
    expect(mine).toMatchObject({ label: 'teammate', mask_value: created.body.mask_value });
    expect(JSON.stringify(list.keys)).not.toContain(value);
    expect(listed.every((k) => !('value' in k))).toBe(true);
    const one = await call('GET', `/api/personal_api_keys/${created.body.id}/`);
    expect(one.body.value).toBeUndefined();
  });

  it('roll: the new value works, the old one no longer does', async () => {
    const created = await call('POST', '/api/personal_api_keys/', { label: 'roll me', scopes: ['project:read'] });
    const rolled = await call('POST', `/api/personal_api_keys/${created.body.id}/roll/`);
    expect(rolled.status).toBe(200);
    expect(rolled.body.value).toMatch(/^phx_/);
    expect(rolled.body.value).not.toBe(created.body.value);
    expect(rolled.body.last_rolled_at).toEqual(expect.any(String));
    expect((await call('GET', '/api/projects/', undefined, created.body.value)).status).toBe(401);
    expect((await call('GET', '/api/projects/', undefined, rolled.body.value)).status).toBe(200);
  });

  it('revoke: the key stops working, leaves the list, and cannot be rolled back to life', async () => {
    const created = await call('POST', '/api/personal_api_keys/', { label: 'revoke me', scopes: ['project:read'] });
    expect((await call('GET', '/api/projects/', undefined, created.body.value)).status).toBe(200);
    expect((await call('DELETE', `/api/personal_api_keys/${created.body.id}/`)).status).toBe(204);
    expect((await call('GET', '/api/projects/', undefined, created.body.value)).status).toBe(401);
    const listed = (await listKeys()).keys;
    expect(listed.map((k) => k.id)).not.toContain(created.body.id);
    expect((await call('POST', `/api/personal_api_keys/${created.body.id}/roll/`)).status).toBe(404);
    expect((await call('DELETE', `/api/personal_api_keys/${created.body.id}/`)).status).toBe(404);
  });

  it('a key cannot make a stronger key: scopes it lacks, projects outside its own', async () => {
    const flagsOnly = (await call('POST', '/api/personal_api_keys/', { label: 'maker', scopes: ['personal_api_key:write', 'feature_flag:read'] })).body.value;
    const escalate = await call('POST', '/api/personal_api_keys/', { label: 'x', scopes: ['feature_flag:write'] }, flagsOnly);
    expect(escalate.status).toBe(403);
    expect((await call('POST', '/api/personal_api_keys/', { label: 'x', scopes: ['*'] }, flagsOnly)).status).toBe(403);
    expect((await call('POST', '/api/personal_api_keys/', { label: 'x', scopes: ['feature_flag:read'] }, flagsOnly)).status).toBe(201);

    const other = (await call('POST', '/api/projects/', { name: 'other' })).body.id;
    const limited = (await call('POST', '/api/personal_api_keys/', { label: 'l', scopes: ['*'], scoped_teams: [s.credentials.project_id] })).body.value;
    expect((await call('POST', '/api/personal_api_keys/', { label: 'x', scopes: ['*'] }, limited)).status).toBe(400);
    expect((await call('POST', '/api/personal_api_keys/', { label: 'x', scopes: ['*'], scoped_teams: [other] }, limited)).status).toBe(403);
    const ok = await call('POST', '/api/personal_api_keys/', { label: 'x', scopes: ['project:read'], scoped_teams: [s.credentials.project_id] }, limited);
    expect(ok.status).toBe(201);
    const seen = (await call('GET', '/api/projects/', undefined, ok.body.value)).body.results.map((p: { id: number }) => p.id);
    expect(seen).toEqual([s.credentials.project_id]);
  });

  it('bad input is a 400 in the error shape and makes no key; unknown ids are 404', async () => {
    const before = (await listKeys()).keys;
    for (const body of [{ label: 'x', scopes: [] }, { label: 'x', scopes: ['nope:read'] }, { label: '', scopes: ['*'] }, { label: 'x', scopes: ['*'], scoped_teams: [999999] }, { label: 'x', scopes: ['*'], extra: 1 }]) {
      const r = await call('POST', '/api/personal_api_keys/', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(r.body).sort()).toEqual(['attr', 'code', 'detail', 'type']);
    }
    expect((await listKeys()).keys.length).toBe(before.length);
    expect((await call('GET', '/api/personal_api_keys/no-such-key/')).status).toBe(404);
  });
});
