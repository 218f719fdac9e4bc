import { afterAll, beforeAll, expect, it } from 'vitest';
import { featureFlagsProjection } from '../../../projections/feature-flags';
import { featureFlagQueries } from '../../../projections/feature-flags-queries';
import { startTestServer, type TestServer } from '../../support/server';
import { foldIntoBoth, postgresForReadModels, type FoldedStores } from './folded-stores';

const schemas = await postgresForReadModels('rm_flags');

if (schemas) {
  let s: TestServer;
  let folded: FoldedStores;
  const projectId = () => s.credentials.project_id;

  beforeAll(async () => {
    s = await startTestServer();
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await s.api(`/api/projects/${projectId()}/feature_flags/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
      expect(res.status, await res.clone().text()).toBeLessThan(300);
      return res.status === 204 ? null : ((await res.json()) as { id: number });
    };
    // Creates, partial updates (name only, filters only, active only, continuity), a delete, names
    // with LIKE wildcards and mixed case for the search, through the real HTTP API.
    const names = ['Checkout Redesign', 'checkout_v2', '100% rollout', 'Beta: NEW onboarding', 'pricing-page', 'a\\b path'];
    const ids: number[] = [];
    for (const [i, name] of names.entries()) {
      const flag = await send('POST', '', {
        key: `flag-${i}${i % 2 ? '_x' : ''}`,
        name,
        active: i % 3 !== 2,
        ensure_experience_continuity: i === 4,
        filters: {
          groups: [{ properties: i % 2 ? [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }] : [], rollout_percentage: 10 * i }],
          ...(i === 3 ? { multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] } } : {}),
        },
      });
      ids.push(flag!.id);
    }
    await send('PATCH', `${ids[0]}/`, { name: 'Checkout redesign (renamed)' });
    await send('PATCH', `${ids[1]}/`, { filters: { groups: [{ properties: [], rollout_percentage: 77 }] } });
    await send('PATCH', `${ids[2]}/`, { active: true });
    await send('PATCH', `${ids[3]}/`, { ensure_experience_continuity: true, active: false });
    await send('DELETE', `${ids[4]}/`);
    await send('PATCH', `${ids[5]}/`, { deleted: true });
    folded = await foldIntoBoth(s.runtime.log, [featureFlagsProjection], schemas);
  }, 60_000);

  afterAll(async () => {
    await folded?.close();
    await s?.close();
  });

  it('folds the same rows on SQLite and PostgreSQL (equal digests), the same rows as the live store', async () => {
    const { sqlite, postgres } = await folded.digests();
    expect(postgres).toEqual(sqlite);
    const live = await s.runtime.readModels.readmodels.session.all('SELECT * FROM feature_flags ORDER BY id');
    expect(live).toHaveLength(6);
    expect(await folded.postgres.all('SELECT * FROM feature_flags ORDER BY id')).toEqual(live);
  });

  it('answers every flag query the same on both stores', async () => {
    const [a, b] = [featureFlagQueries(folded.sqlite), featureFlagQueries(folded.postgres)];
    const both = async <T>(q: (x: typeof a) => Promise<T>) => {
      const [x, y] = [await q(a), await q(b)];
      expect(y).toEqual(x);
      return x;
    };
    const p = projectId();
    const all = await both((q) => q.list(p, 100, 0));
    expect(all.count).toBe(4);
    expect(all.rows.map((r) => r.id)).toEqual([4, 3, 2, 1]);
    expect((await both((q) => q.list(p, 2, 1))).rows.map((r) => r.id)).toEqual([3, 2]);
    expect((await both((q) => q.list(p, 10, 0, { active: true }))).count).toBe(3);
    expect((await both((q) => q.list(p, 10, 0, { active: false }))).rows.map((r) => r.key)).toEqual(['flag-3_x']);
    // Case is ignored; LIKE's wildcards in the search are literal.
    expect((await both((q) => q.list(p, 10, 0, { search: 'CHECKOUT' }))).rows.map((r) => r.id)).toEqual([2, 1]);
    expect((await both((q) => q.list(p, 10, 0, { search: '100%' }))).rows.map((r) => r.id)).toEqual([3]);
    expect((await both((q) => q.list(p, 10, 0, { search: '_x' }))).rows.map((r) => r.id)).toEqual([4, 2]);
    expect((await both((q) => q.list(p, 10, 0, { search: 'new onb', active: false }))).count).toBe(1);
    expect((await both((q) => q.list(p, 10, 0, { search: 'nothing like it' }))).count).toBe(0);
    expect((await both((q) => q.list(p, 10, 0, { search: 'a\\b' }))).count).toBe(0);
    expect((await both((q) => q.list(999, 10, 0))).count).toBe(0);
    const live = await both((q) => q.allLive(p));
    expect(live.map((r) => r.id)).toEqual([1, 2, 3, 4]);
    expect(live[3]).toMatchObject({ active: false, ensure_experience_continuity: true, version: 2 });
    for (const id of [1, 2, 3, 4, 5, 6, 7]) {
      const flag = await both((q) => q.byId(p, id));
      if (flag) expect(await both((q) => q.byKey(p, flag.key))).toEqual(flag);
    }
    expect(await both((q) => q.byId(p, 5))).toMatchObject({ deleted: true, active: false, ensure_experience_continuity: true });
    await both((q) => q.byKey(p, 'missing'));
  });
}
