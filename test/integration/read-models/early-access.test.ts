import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { earlyAccessFeatureStream, type Actor } from '../../../streams';
import { earlyAccessProjection } from '../../../projections/early-access';
import { earlyAccessQueries } from '../../../projections/early-access-queries';
import { json } from '../../support/json';
import { settle } from '../../support/posthog';
import { startTestServer, type TestServer } from '../../support/server';
import { send } from '../experiments/helpers';
import { bothStores, pgUserForSuite, type FoldedStores } from './folded-stores';

const USER = await pgUserForSuite();

describe.runIf(USER !== null)('early access read model on SQLite and PostgreSQL', () => {
  const fold = bothStores(USER!, 'rm_early_access');
  let s: TestServer;
  let stores: FoldedStores;
  const ids: Record<string, string> = {};
  let projectId: number;
  let linkedKey: string;

  beforeAll(async () => {
    s = await startTestServer();
    projectId = s.credentials.project_id;
    const actor: Actor = { type: 'user', id: (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!.id };
    const base = `/api/projects/${projectId}/early_access_feature/`;
    const create = async (body: Record<string, unknown>) => {
      const res = await send(s, 'POST', base, body);
      const out = await json(res);
      expect(res.status, JSON.stringify(out)).toBe(201);
      return out.id as string;
    };
    // A creation that crashed before its flag: a later create of the same name is the one linked.
    const stale = '00000000-0000-4000-8000-00000000c0de';
    await s.runtime.log.append(
      earlyAccessFeatureStream(stale),
      [
        {
          type: 'EarlyAccessFeatureCreated',
          data: {
            featureId: stale,
            projectId,
            fields: { name: 'Crashed', description: '', stage: 'beta', documentation_url: '', payload: {}, assignee: null },
            flagKey: 'crashed',
            flagCreated: false,
            createdBy: null,
          },
        },
      ],
      { expectedRevision: 'no_stream', context: { actor, projectId } },
    );
    await settle(s);
    ids.stale = stale;
    ids.crashed = await create({ name: 'Crashed', stage: 'beta' });
    for (const stage of ['concept', 'alpha', 'beta', 'general-availability']) ids[stage] = await create({ name: `Feature ${stage}`, stage, description: `In ${stage}` });
    const flagRes = await send(s, 'POST', `/api/projects/${projectId}/feature_flags/`, { key: 'existing-flag', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    const flag = await json(flagRes);
    expect(flagRes.status).toBe(201);
    linkedKey = flag.key;
    ids.linked = await create({ name: 'Linked to a flag', stage: 'alpha', feature_flag_id: flag.id });
    ids.gone = await create({ name: 'Soon gone', stage: 'beta' });
    expect((await send(s, 'PATCH', `${base}${ids.beta}/`, { stage: 'general-availability', rollout_to_all: true, name: 'Feature shipped' })).status).toBe(200);
    expect((await send(s, 'PATCH', `${base}${ids.concept}/`, { stage: 'alpha' })).status).toBe(200);
    expect((await send(s, 'DELETE', `${base}${ids.gone}/`)).status).toBe(204);
    stores = await fold(s.runtime.log, [earlyAccessProjection], { withFlags: true });
  });

  afterAll(async () => {
    await stores?.close();
    await s?.close();
  });

  it('folds the same rows (equal digests), in log order', async () => {
    const { sqlite, postgres } = await stores.digests([earlyAccessProjection]);
    expect(postgres).toEqual(sqlite);
    const rows = await stores.both((db) => db.all<{ id: string; flag_linked: number }>('SELECT id, flag_linked FROM early_access_features ORDER BY created_position'));
    expect(rows.postgres).toEqual(rows.sqlite);
    expect(rows.sqlite.map((r) => r.id)).toEqual([ids.stale, ids.crashed, ids.concept, ids.alpha, ids.beta, ids['general-availability'], ids.linked, ids.gone]);
    expect(rows.sqlite.find((r) => r.id === ids.stale)!.flag_linked).toBe(0);
    expect(rows.sqlite.find((r) => r.id === ids.crashed)!.flag_linked).toBe(1);
  });

  it('answers every query the same', async () => {
    const check = async <T>(query: (q: ReturnType<typeof earlyAccessQueries>) => Promise<T>) => {
      const { sqlite, postgres } = await stores.both((db) => query(earlyAccessQueries(db)));
      expect(postgres).toEqual(sqlite);
      return sqlite;
    };
    for (const id of Object.values(ids)) await check((q) => q.byId(projectId, id));
    expect(await check((q) => q.byId(projectId, ids.stale))).toBeUndefined();
    expect(await check((q) => q.byId(projectId, ids.gone))).toBeUndefined();
    expect((await check((q) => q.byId(projectId, ids.beta)))?.fields.stage).toBe('general-availability');
    expect(await check((q) => q.ownerOfFlag(projectId, linkedKey))).toBe(ids.linked);
    expect(await check((q) => q.ownerOfFlag(projectId, 'crashed'))).toBe(ids.crashed);
    expect(await check((q) => q.ownerOfFlag(projectId, 'soon-gone'))).toBeUndefined();

    expect((await check((q) => q.list(projectId, 100, 0))).count).toBe(6);
    const pages = [await check((q) => q.list(projectId, 4, 0)), await check((q) => q.list(projectId, 4, 4))];
    expect(pages.map((p) => p.rows.length)).toEqual([4, 2]);
    expect((await check((q) => q.list(projectId + 1, 10, 0))).count).toBe(0);

    expect(await check((q) => q.inStages(projectId, []))).toEqual([]);
    expect((await check((q) => q.inStages(projectId, ['alpha']))).map((r) => r.id)).toEqual([ids.concept, ids.alpha, ids.linked]);
    expect((await check((q) => q.inStages(projectId, ['beta', 'general-availability']))).map((r) => r.id)).toEqual([ids.crashed, ids.beta, ids['general-availability']]);
    expect(await check((q) => q.inStages(projectId, ["it's", 'none']))).toEqual([]);
  });
});
