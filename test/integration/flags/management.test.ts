import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { ingest } from './helpers';

// The PostHog-style feature flag management API over HTTP: CRUD, versions, soft delete, validation, scopes.
let s: TestServer;
let base: string;
beforeAll(async () => {
  s = await startTestServer();
  base = `/api/projects/${s.credentials.project_id}/feature_flags/`;
  // One group type (index 0) exists; index 1 does not.
  await ingest(s, [{ event: '$groupidentify', distinct_id: 'g', properties: { $group_type: 'company', $group_key: 'acme' } }]);
});
afterAll(() => s.close());

const rollout = (pct: number) => ({ groups: [{ properties: [], rollout_percentage: pct }] });
const call = async (path: string, init: RequestInit & { key?: string | null } = {}) => {
  const res = await s.api(path, init);
  return { status: res.status, body: res.status === 204 ? null : await json(res) };
};
const create = (body: Record<string, unknown>) => call(base, { method: 'POST', body: JSON.stringify(body) });
const patch = (id: number, body: Record<string, unknown>) => call(`${base}${id}/`, { method: 'PATCH', body: JSON.stringify(body) });
const scopedKey = async (scopes: string[]) => {
  const user = (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!;
  const created = await s.runtime.access.createPersonalKey({ userId: user.id, label: 'scoped', scopes: scopes as never }, { type: 'system' });
  return created.key;
};

describe('create, retrieve, update, delete', () => {
  it('creates with 201 and the full body, then retrieves the same', async () => {
    const { status, body } = await create({ key: 'new-checkout', name: 'New checkout', filters: rollout(30), ensure_experience_continuity: true });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      id: expect.any(Number),
      key: 'new-checkout',
      name: 'New checkout',
      filters: { groups: [{ properties: [], rollout_percentage: 30 }] },
      active: true,
      deleted: false,
      ensure_experience_continuity: true,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      created_by: { email: 'admin@localhost.localdomain' },
      version: 1,
    });
    const got = await call(`${base}${body.id}/`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(body);
  });

  it('increments version on every change, and not on a no-op', async () => {
    const { body: flag } = await create({ key: 'versioned', filters: rollout(10) });
    expect(flag.version).toBe(1);
    const renamed = await patch(flag.id, { name: 'Renamed' });
    expect(renamed).toMatchObject({ status: 200, body: { name: 'Renamed', version: 2 } });
    const refiltered = await patch(flag.id, { filters: rollout(60) });
    expect(refiltered.body).toMatchObject({ version: 3, filters: { groups: [{ rollout_percentage: 60 }] } });
    const deactivated = await patch(flag.id, { active: false });
    expect(deactivated.body).toMatchObject({ version: 4, active: false });
    const same = await patch(flag.id, { active: false, name: 'Renamed' });
    expect(same.body).toMatchObject({ version: 4 });
    expect((await call(`${base}${flag.id}/`)).body.version).toBe(4);
  });

  it('refuses to change the key', async () => {
    const { body: flag } = await create({ key: 'fixed-key', filters: rollout(10) });
    expect(await patch(flag.id, { key: 'other-key' })).toMatchObject({ status: 400, body: { type: 'validation_error', attr: 'key' } });
  });

  it('soft deletes: 204, then 404, hidden from the list, key still taken', async () => {
    const { body: flag } = await create({ key: 'short-lived', filters: rollout(10) });
    expect((await call(`${base}${flag.id}/`, { method: 'DELETE' })).status).toBe(204);
    expect((await call(`${base}${flag.id}/`)).status).toBe(404);
    expect((await patch(flag.id, { name: 'x' })).status).toBe(404);
    expect((await call(`${base}${flag.id}/`, { method: 'DELETE' })).status).toBe(404);
    const list = await call(`${base}?limit=1000`);
    expect(list.body.results.map((f: { key: string }) => f.key)).not.toContain('short-lived');
    const again = await create({ key: 'short-lived', filters: rollout(10) });
    expect(again).toMatchObject({ status: 400, body: { type: 'validation_error', attr: 'key', detail: 'There is already a feature flag with this key.' } });
  });

  it('PATCH deleted: true is the same soft delete', async () => {
    const { body: flag } = await create({ key: 'patched-away', filters: rollout(10) });
    const res = await patch(flag.id, { deleted: true });
    expect(res).toMatchObject({ status: 200, body: { deleted: true, active: false, version: 2 } });
    expect((await call(`${base}${flag.id}/`)).status).toBe(404);
  });

  it('404 for an unknown or non-numeric id', async () => {
    expect((await call(`${base}999999/`)).status).toBe(404);
    expect((await call(`${base}abc/`)).status).toBe(404);
  });
});

describe('validation', () => {
  const variants = (...pcts: number[]) => ({ variants: pcts.map((p, i) => ({ key: `v${i}`, rollout_percentage: p })) });
  const cases: [string, Record<string, unknown>, string][] = [
    ['key with a space', { key: 'bad key', filters: rollout(10) }, 'key'],
    ['key with a dot', { key: 'bad.key', filters: rollout(10) }, 'key'],
    ['missing key', { filters: rollout(10) }, 'key'],
    ['variants summing to 90', { key: 'mv-sum', filters: { ...rollout(10), multivariate: variants(50, 40) } }, 'filters'],
    ['duplicate variant keys', { key: 'mv-dup', filters: { ...rollout(10), multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'a', rollout_percentage: 50 }] } } }, 'filters'],
    ['payload key that is not a variant', { key: 'pl-bad', filters: { ...rollout(10), multivariate: variants(50, 50), payloads: { nope: '1' } } }, 'filters'],
    ['payload key other than "true" on a boolean flag', { key: 'pl-ok', filters: { ...rollout(10), payloads: { other: '1' } } }, 'filters'],
    ['rollout above 100', { key: 'ro-hi', filters: rollout(101) }, 'filters'],
    ['rollout below 0', { key: 'ro-lo', filters: rollout(-1) }, 'filters'],
    ['unknown operator', { key: 'op-bad', filters: { groups: [{ properties: [{ key: 'x', value: 1, operator: 'almost' }], rollout_percentage: 10 }] } }, 'filters'],
    ['a group type that does not exist', { key: 'grp-bad', filters: { aggregation_group_type_index: 1, ...rollout(10) } }, 'filters'],
    ['a variant override that is not a variant', { key: 'ov-bad', filters: { groups: [{ properties: [], rollout_percentage: 10, variant: 'zzz' }], multivariate: variants(100) } }, 'filters'],
  ];
  it.each(cases)('400 with attr for %s', async (_name, body, attr) => {
    const res = await create(body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ type: 'validation_error', attr, detail: expect.any(String) });
  });

  it('accepts the valid neighbours of those cases', async () => {
    const ok = [
      { key: 'Mixed_Case-key_1', filters: rollout(0) },
      { key: 'mv-ok', filters: { ...rollout(100), multivariate: variants(33.33, 33.33, 33.34), payloads: { v0: { a: 1 }, v2: '"two"' } } },
      { key: 'grp-ok', filters: { aggregation_group_type_index: 0, ...rollout(100) } },
      { key: 'payload-true', filters: { ...rollout(100), payloads: { true: '[1,2]' } } },
    ];
    for (const body of ok) expect((await create(body)).status).toBe(201);
    // Payloads are stored JSON-encoded: an object given by the client becomes its JSON text.
    const mv = (await call(`${base}?search=mv-ok`)).body.results[0];
    expect(mv.filters.payloads).toEqual({ v0: '{"a":1}', v2: '"two"' });
  });
});

describe('scopes', () => {
  it('feature_flag:read may list and retrieve but not write (403); no key is 401', async () => {
    const key = await scopedKey(['feature_flag:read']);
    expect((await call(base, { key })).status).toBe(200);
    const denied = await call(base, { key, method: 'POST', body: JSON.stringify({ key: 'nope', filters: rollout(1) }) });
    expect(denied).toMatchObject({ status: 403, body: { code: 'permission_denied' } });
    expect((await call(base, { key: null })).status).toBe(401);
    expect((await call(base, { key: null, method: 'POST', body: '{}' })).status).toBe(401);
    const unrelated = await scopedKey(['experiment:read']);
    expect((await call(base, { key: unrelated })).status).toBe(403);
  });
});

describe('list', () => {
  it('pages newest first with count, next and previous', async () => {
    for (let i = 0; i < 5; i++) expect((await create({ key: `page-${i}`, filters: rollout(1) })).status).toBe(201);
    const all = await call(`${base}?limit=1000`);
    const total = all.body.count;
    expect(all.body.results).toHaveLength(total);
    const ids = all.body.results.map((f: { id: number }) => f.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const first = await call(`${base}?limit=2`);
    expect(first.body).toMatchObject({ count: total, previous: null });
    expect(first.body.results.map((f: { key: string }) => f.key)).toEqual(['page-4', 'page-3']);
    const next = new URL(first.body.next);
    expect(next.searchParams.get('offset')).toBe('2');
    const second = await call(`${base}${next.search}`);
    expect(second.body.results.map((f: { key: string }) => f.key)).toEqual(['page-2', 'page-1']);
    expect(second.body.previous).not.toBeNull();
    const last = await call(`${base}?limit=2&offset=${total - 1}`);
    expect(last.body.results).toHaveLength(1);
    expect(last.body.next).toBeNull();
  });
});
