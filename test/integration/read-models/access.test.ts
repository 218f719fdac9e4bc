import { afterAll, beforeAll, expect, it } from 'vitest';
import { accessProjection } from '../../../projections/access';
import { accessQueries } from '../../../projections/access-queries';
import { hashKey } from '../../../src/access';
import { startTestServer, type TestServer } from '../../support/server';
import { foldIntoBoth, postgresForReadModels, type FoldedStores } from './folded-stores';

const schemas = await postgresForReadModels('rm_access');

if (schemas) {
  let s: TestServer;
  let folded: FoldedStores;
  const keys: string[] = [];
  let orgs: string[] = [];

  beforeAll(async () => {
    s = await startTestServer();
    const { access } = s.runtime;
    const system = { type: 'system' as const };
    // A second organization with two members, three projects over both, keys of every shape, a
    // revoked key, settings changed twice (merged), a membership re-added at another level.
    const other = await access.createOrganization("O'Brien & Co", system);
    orgs = [s.credentials.organization_id, other];
    const alice = await access.createUser({ email: 'alice@example.com', firstName: 'Alice', lastName: 'Ä' }, system);
    const bob = await access.createUser({ email: 'bob@example.com', firstName: 'Bob', lastName: '' }, system);
    await access.addMember(other, alice, 'owner', system);
    await access.addMember(other, bob, 'member', system);
    await access.addMember(s.credentials.organization_id, bob, 'admin', system);
    const p2 = await access.createProject(other, 'Theirs', system);
    await access.createProject(other, 'Theirs too', system);
    await access.createProject(s.credentials.organization_id, 'Second of ours', system);
    for (const [id, body] of [
      [s.credentials.project_id, { session_recording_opt_in: true }],
      [s.credentials.project_id, { capture_performance_opt_in: false, session_recording_sample_rate: '0.50' }],
    ] as const) {
      const res = await s.api(`/api/projects/${id}/`, { method: 'PATCH', body: JSON.stringify(body) });
      expect(res.status).toBe(200);
    }
    // Not the bootstrap key's organization: through the service.
    await access.changeProjectSettings(p2.id, { autocapture_opt_out: true }, system);
    const k1 = await access.createPersonalKey({ userId: alice, label: 'scoped', scopes: ['feature_flag:read'], scopedProjects: [p2.id] }, system);
    const k2 = await access.createPersonalKey({ userId: bob, label: 'orgs', scopes: ['*'], scopedOrganizations: [other] }, system);
    await access.revokePersonalKey(k1.id, system);
    keys.push(hashKey(k1.key), hashKey(k2.key), hashKey(s.credentials.personal_api_key));
    folded = await foldIntoBoth(s.runtime.log, [accessProjection], schemas);
  }, 60_000);

  afterAll(async () => {
    await folded?.close();
    await s?.close();
  });

  it('folds the same rows on SQLite and PostgreSQL (equal digests), the same rows as the live store', async () => {
    const { sqlite, postgres } = await folded.digests();
    expect(postgres).toEqual(sqlite);
    const live = s.runtime.readModels.readmodels.session;
    for (const table of ['organizations', 'users', 'memberships', 'projects', 'personal_api_keys'])
      expect(await folded.postgres.all(`SELECT * FROM ${table} ORDER BY 1, 2`)).toEqual(await live.all(`SELECT * FROM ${table} ORDER BY 1, 2`));
  });

  it('answers every access query the same on both stores', async () => {
    const [a, b] = [accessQueries(folded.sqlite), accessQueries(folded.postgres)];
    const both = async <T>(q: (x: typeof a) => Promise<T>) => {
      const [x, y] = [await q(a), await q(b)];
      expect(y).toEqual(x);
      return x;
    };
    const projects = await both((q) => q.projectsOf(orgs, 100, 0));
    expect(projects.count).toBe(4);
    expect((await both((q) => q.projectsOf(orgs, 2, 1))).rows.map((p) => p.id)).toEqual([2, 3]);
    expect((await both((q) => q.projectsOf([orgs[1]], 10, 0))).count).toBe(2);
    expect((await both((q) => q.projectsOf([], 10, 0))).count).toBe(0);
    for (const p of projects.rows) {
      await both((q) => q.project(p.id));
      expect((await both((q) => q.projectByToken(p.api_token)))?.id).toBe(p.id);
    }
    expect(JSON.parse((await both((q) => q.project(s.credentials.project_id)))!.settings)).toMatchObject({
      session_recording_opt_in: true,
      capture_performance_opt_in: false,
    });
    expect(await both((q) => q.project(999))).toBeUndefined();
    expect(await both((q) => q.projectByToken('phc_nope'))).toBeUndefined();
    expect(projects.rows.map((p) => [p.id, p.name])).toEqual([
      [1, expect.any(String)],
      [2, 'Theirs'],
      [3, 'Theirs too'],
      [4, 'Second of ours'],
    ]);
    expect(await both((q) => q.maxProjectId())).toBe(4);
    expect(await both((q) => q.maxUserId())).toBe(3);
    expect((await both((q) => q.firstOrganization()))?.id).toBe(orgs[0]);
    for (const org of [...orgs, 'missing']) {
      await both((q) => q.organization(org));
      await both((q) => q.firstProjectOf(org));
      await both((q) => q.firstUserOf(org));
    }
    expect((await both((q) => q.organization(orgs[1])))?.name).toBe("O'Brien & Co");
    expect(await both((q) => q.organization('missing'))).toBeUndefined();
    // The lowest project id of an organization, and its earliest member.
    expect((await both((q) => q.firstProjectOf(orgs[1])))?.id).toBe(2);
    expect((await both((q) => q.firstProjectOf(orgs[0])))?.id).toBe(s.credentials.project_id);
    expect(await both((q) => q.firstProjectOf('missing'))).toBeUndefined();
    expect((await both((q) => q.firstUserOf(orgs[1])))?.email).toBe('alice@example.com');
    expect(await both((q) => q.firstUserOf('missing'))).toBeUndefined();
    for (const user of [1, 2, 3, 4]) {
      await both((q) => q.user(user));
      await both((q) => q.organizationsOf(user));
    }
    expect(await both((q) => q.user(2))).toMatchObject({ id: 2, email: 'alice@example.com', first_name: 'Alice', last_name: 'Ä' });
    expect(await both((q) => q.user(4))).toBeUndefined();
    expect(await both((q) => q.organizationsOf(2))).toEqual([orgs[1]]);
    expect(await both((q) => q.organizationsOf(4))).toEqual([]);
    expect(await both((q) => q.organizationsOf(3))).toEqual([...orgs].sort());
    const all = await both((q) => q.keys());
    expect(all.map((k) => k.label)).toContain('scoped');
    expect(all.find((k) => k.label === 'scoped')).toMatchObject({ scoped_projects: [2], revoked_at: expect.any(String) });
    for (const k of all) expect((await both((q) => q.key(k.id)))?.id).toBe(k.id);
    expect(await both((q) => q.key('missing'))).toBeUndefined();
    // Found by the hash of the secret, its JSON columns read back as arrays (or null).
    const [scoped, orgWide, bootstrapKey] = await Promise.all(keys.map((secure) => both((q) => q.keyBySecureValue(secure))));
    expect(scoped).toMatchObject({ label: 'scoped', user_id: 2, scopes: ['feature_flag:read'], scoped_projects: [2], scoped_organizations: null });
    expect(orgWide).toMatchObject({ label: 'orgs', user_id: 3, scopes: ['*'], scoped_projects: null, scoped_organizations: [orgs[1]], revoked_at: null });
    expect(bootstrapKey?.user_id).toBe(1);
    expect(await both((q) => q.keyBySecureValue('sha256$nope'))).toBeUndefined();
    // Oldest first; each user's own.
    expect(all.map((k) => k.created_at)).toEqual([...all.map((k) => k.created_at)].sort());
    expect((await both((q) => q.keysOf(2))).map((k) => k.label)).toEqual(['scoped']);
    expect((await both((q) => q.keysOf(3))).map((k) => k.label)).toEqual(['orgs']);
    expect(await both((q) => q.keysOf(4))).toEqual([]);
  });
}
