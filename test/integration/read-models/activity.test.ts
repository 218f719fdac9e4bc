import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityProjection, activityQueries, ACTIVITY_SCOPES } from '../../../projections';
import type { ReadModelProjection } from '../../../src/store/read-model-projection';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { send } from '../experiments/helpers';
import { bothStores, pgUserForSuite, type FoldedStores } from './folded-stores';

const USER = await pgUserForSuite();

describe.runIf(USER !== null)('activity read model on SQLite and PostgreSQL', () => {
  const fold = bothStores(USER!, 'rm_activity');
  const projection = activityProjection as ReadModelProjection;
  let s: TestServer;
  let stores: FoldedStores;
  let projectId: number;
  let flagId: number;

  beforeAll(async () => {
    s = await startTestServer();
    projectId = s.credentials.project_id;
    const base = `/api/projects/${projectId}`;
    for (let i = 0; i < 4; i++) {
      const flag = await json(await send(s, 'POST', `${base}/feature_flags/`, { key: `rm-${i}`, name: 'n', filters: { groups: [{ rollout_percentage: 10 * i }] } }));
      flagId = flag.id;
      await send(s, 'PATCH', `${base}/feature_flags/${flag.id}/`, { active: i % 2 === 0, name: `n${i}` });
    }
    await send(s, 'DELETE', `${base}/feature_flags/${flagId}/`);
    const survey = await json(await send(s, 'POST', `${base}/surveys/`, { name: 'S', type: 'api' }));
    await send(s, 'PATCH', `${base}/surveys/${survey.id}/`, { description: 'changed' });
    await send(s, 'POST', `${base}/experiments/`, { name: 'E', feature_flag_key: 'rm-exp' });
    stores = await fold(s.runtime.log, [projection]);
  });

  afterAll(async () => {
    await stores?.close();
    await s?.close();
  });

  it('folds the same rows (equal digests)', async () => {
    const { sqlite, postgres } = await stores.digests([projection]);
    expect(postgres).toEqual(sqlite);
    const rows = await stores.both((db) => db.all('SELECT * FROM activity_log ORDER BY position'));
    expect(rows.postgres).toEqual(rows.sqlite);
    // Flags: 4 created, 4 updated, 1 deleted; the survey, its internal flag, its update; the experiment and its flag.
    expect(rows.sqlite).toHaveLength(4 * 2 + 1 + 3 + 2);
  });

  it('answers every query the same', async () => {
    const check = async <T>(query: (q: ReturnType<typeof activityQueries>) => Promise<T>) => {
      const { sqlite, postgres } = await stores.both((db) => query(activityQueries(db)));
      expect(postgres).toEqual(sqlite);
      return sqlite;
    };
    const all = await check((q) => q.list(projectId, { scopes: ACTIVITY_SCOPES }, 100, 0));
    expect(all.count).toBe(14);
    expect((await check((q) => q.list(projectId, { scopes: ['FeatureFlag'] }, 3, 2))).rows).toHaveLength(3);
    expect((await check((q) => q.list(projectId, { scopes: ['FeatureFlag'], itemId: String(flagId) }, 10, 0))).count).toBe(3);
    expect((await check((q) => q.list(projectId, { scopes: [] }, 10, 0))).count).toBe(0);
    expect((await check((q) => q.list(projectId + 1, { scopes: ACTIVITY_SCOPES }, 10, 0))).count).toBe(0);
    const middle = all.rows[5].created_at;
    await check((q) => q.list(projectId, { scopes: ACTIVITY_SCOPES, after: middle, userId: all.rows[0].user_id ?? undefined }, 100, 0));
    expect(await check((q) => q.hasItem(projectId, 'FeatureFlag', String(flagId)))).toBe(true);
    expect(await check((q) => q.hasItem(projectId, 'Survey', String(flagId)))).toBe(false);
  });
});
