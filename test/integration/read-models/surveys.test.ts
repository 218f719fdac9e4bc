import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadModelProjection } from '../../../src/store/read-model-projection';
import { surveysProjection } from '../../../projections/surveys';
import { surveyQueries } from '../../../projections/surveys-queries';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { ingestEvents, send } from '../experiments/helpers';
import { bothStores, pgUserForSuite, type FoldedStores } from './folded-stores';

const USER = await pgUserForSuite();

describe.runIf(USER !== null)('surveys read model on SQLite and PostgreSQL', () => {
  const fold = bothStores(USER!, 'rm_surveys');
  const projection = surveysProjection as ReadModelProjection;
  let s: TestServer;
  let stores: FoldedStores;
  const ids: Record<string, string> = {};
  let projectId: number;

  beforeAll(async () => {
    s = await startTestServer();
    projectId = s.credentials.project_id;
    const base = `/api/projects/${projectId}/surveys/`;
    const create = async (body: Record<string, unknown>) => {
      const res = await send(s, 'POST', base, body);
      const out = await json(res);
      expect(res.status, JSON.stringify(out)).toBe(201);
      return out.id as string;
    };
    const targeting = { groups: [{ properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }], rollout_percentage: 100 }] };
    ids.nps = await create({ name: 'NPS', type: 'popover', description: 'How LIKELY are you to recommend us?', questions: [{ type: 'rating', question: 'Score?', scale: 10 }] });
    ids.pricing = await create({ name: 'Pricing 100% feedback', type: 'api', description: 'under_score', targeting_flag_filters: targeting });
    ids.churn = await create({ name: 'Churn', type: 'popover', questions: [{ type: 'open', question: 'Why?' }] });
    ids.gone = await create({ name: 'Gone', type: 'api' });
    ids.archived = await create({ name: 'Archived one', type: 'api' });
    for (let i = 0; i < 4; i++) ids[`bulk${i}`] = await create({ name: `Bulk ${i}`, type: 'api', ...(i % 2 ? { description: 'odd likely' } : {}) });
    const patch = async (id: string, body: Record<string, unknown>) => expect((await send(s, 'PATCH', `${base}${id}/`, body)).status).toBe(200);
    await patch(ids.nps, { start_date: '2026-01-01T00:00:00Z', name: 'NPS Q1' });
    await patch(ids.pricing, { remove_targeting_flag: true });
    await patch(ids.churn, { targeting_flag_filters: targeting });
    await patch(ids.archived, { archived: true });
    expect((await send(s, 'DELETE', `${base}${ids.gone}/`)).status).toBe(204);
    const sent = (distinct: string, survey: string, submission?: string) => ({
      event: 'survey sent',
      distinct_id: distinct,
      properties: { $survey_id: survey, $survey_response: 'x', ...(submission ? { $survey_submission_id: submission } : {}) },
    });
    await ingestEvents(s, [
      sent('a', ids.nps, 'one'),
      sent('a', ids.nps, 'one'),
      sent('b', ids.nps),
      sent('c', ids.nps),
      sent('a', ids.churn, 'two'),
      sent('d', ids.gone, 'three'),
      { event: '$pageview', distinct_id: 'a' },
    ]);
    stores = await fold(s.runtime.log, [projection]);
  });

  afterAll(async () => {
    await stores?.close();
    await s?.close();
  });

  it('folds the same rows (equal digests)', async () => {
    const { sqlite, postgres } = await stores.digests([projection]);
    expect(postgres).toEqual(sqlite);
    const rows = await stores.both((db) => db.all('SELECT * FROM surveys ORDER BY id'));
    expect(rows.postgres).toEqual(rows.sqlite);
    expect(rows.sqlite).toHaveLength(9);
  });

  it('answers every query the same', async () => {
    const check = async <T>(query: (q: ReturnType<typeof surveyQueries>) => Promise<T>) => {
      const { sqlite, postgres } = await stores.both((db) => query(surveyQueries(db)));
      expect(postgres).toEqual(sqlite);
      return sqlite;
    };
    for (const id of Object.values(ids)) await check((q) => q.byId(projectId, id));
    expect(await check((q) => q.byId(projectId, ids.gone))).toBeUndefined();
    expect((await check((q) => q.byId(projectId, ids.nps)))?.responses_count).toBe(3);
    expect(await check((q) => q.byId(projectId + 1, ids.nps))).toBeUndefined();

    expect(await check((q) => q.nameTaken(projectId, 'Churn', null))).toBe(true);
    expect(await check((q) => q.nameTaken(projectId, 'Churn', ids.churn))).toBe(false);
    expect(await check((q) => q.nameTaken(projectId, 'Churn', ids.nps))).toBe(true);
    expect(await check((q) => q.nameTaken(projectId, 'Gone', null))).toBe(false);

    expect((await check((q) => q.list(projectId, 100, 0))).count).toBe(8);
    const pages = [await check((q) => q.list(projectId, 3, 0)), await check((q) => q.list(projectId, 3, 3)), await check((q) => q.list(projectId, 3, 6))];
    expect(pages.map((p) => p.rows.length)).toEqual([3, 3, 2]);
    expect((await check((q) => q.list(projectId, 100, 0, 'likely'))).count).toBe(3);
    expect((await check((q) => q.list(projectId, 100, 0, 'nps q'))).count).toBe(1);
    expect((await check((q) => q.list(projectId, 100, 0, '100%'))).count).toBe(1);
    expect((await check((q) => q.list(projectId, 100, 0, '%'))).count).toBe(1);
    expect((await check((q) => q.list(projectId, 100, 0, 'under_'))).count).toBe(1);
    expect((await check((q) => q.list(projectId, 100, 0, '_'))).count).toBe(1);
    expect((await check((q) => q.list(projectId, 100, 0, 'bulk'))).count).toBe(4);
    expect((await check((q) => q.list(projectId, 100, 0, 'gone'))).count).toBe(0);

    expect((await check((q) => q.active(projectId))).map((r) => r.id)).not.toContain(ids.archived);
    expect(await check((q) => q.responsesCount(projectId))).toEqual({ [ids.nps]: 3, [ids.churn]: 1 });
    expect(await check((q) => q.responsesCount(projectId + 1))).toEqual({});
  });
});
