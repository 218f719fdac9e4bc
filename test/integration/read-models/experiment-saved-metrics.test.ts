import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentSavedMetricsProjection } from '../../../projections/experiment-saved-metrics';
import { savedMetricQueries } from '../../../projections/experiment-saved-metrics-queries';
import type { ReadModelProjection } from '../../../src/store/read-model-projection';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { createExperiment, send } from '../experiments/helpers';
import { bothStores, pgUserForSuite, type FoldedStores } from './folded-stores';

const USER = await pgUserForSuite();

// Saved metrics and their links folded on both engines: the same rows, and every query (the
// case-insensitive name check, the order by name, the links with their metric) the same answer.
describe.runIf(USER !== null)('saved experiment metrics read model on SQLite and PostgreSQL', () => {
  const fold = bothStores(USER!, 'rm_saved_metrics');
  const projection = experimentSavedMetricsProjection as ReadModelProjection;
  let s: TestServer;
  let stores: FoldedStores;
  let projectId: number;
  let experimentId: number;
  let ids: number[];

  beforeAll(async () => {
    s = await startTestServer();
    projectId = s.credentials.project_id;
    const path = (rest = '') => `/api/projects/${projectId}/experiment_saved_metrics/${rest}`;
    const query = { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: 'purchase' }] };
    ids = [];
    for (const name of ['beta', 'Alpha', 'gamma']) ids.push((await json(await send(s, 'POST', path(), { name, query }))).id);
    await send(s, 'PATCH', path(`${ids[0]}/`), { description: 'changed', tags: ['t'] });
    const links = ids.map((id, i) => ({ id, metadata: { type: i === 0 ? 'primary' : 'secondary' } }));
    experimentId = (await createExperiment(s, { name: 'RM', feature_flag_key: 'rm-saved', saved_metrics_ids: links })).id;
    await send(s, 'PATCH', `/api/projects/${projectId}/experiments/${experimentId}/`, { saved_metrics_ids: links.slice(0, 2) });
    // A change that names no saved metrics leaves the links as they are (the fold below fails on a quarantined event).
    expect((await send(s, 'PATCH', `/api/projects/${projectId}/experiments/${experimentId}/`, { description: 'links untouched' })).status).toBe(200);
    await send(s, 'DELETE', path(`${ids[1]}/`));
    stores = await fold(s.runtime.log, [projection]);
  });

  afterAll(async () => {
    await stores?.close();
    await s?.close();
  });

  it('folds the same rows (equal digests)', async () => {
    const { sqlite, postgres } = await stores.digests([projection]);
    expect(postgres).toEqual(sqlite);
    const links = await stores.both((db) => db.all('SELECT * FROM experiment_saved_metric_links ORDER BY id'));
    expect(links.postgres).toEqual(links.sqlite);
    // 3 made on create, 2 on the PATCH; the deleted metric's link is gone.
    expect(links.sqlite).toHaveLength(5);
  });

  it('answers every query the same', async () => {
    const check = async <T>(query: (q: ReturnType<typeof savedMetricQueries>) => Promise<T>) => {
      const { sqlite, postgres } = await stores.both((db) => query(savedMetricQueries(db)));
      expect(postgres).toEqual(sqlite);
      return sqlite;
    };
    expect((await check((q) => q.list(projectId, 10, 0))).rows.map((r) => r.fields.name)).toEqual(['beta', 'gamma']);
    expect(await check((q) => q.nameTaken(projectId, 'BETA', null))).toBe(true);
    expect(await check((q) => q.nameTaken(projectId, 'BETA', ids[0]))).toBe(false);
    expect(await check((q) => q.nameTaken(projectId, 'alpha', null))).toBe(false);
    expect((await check((q) => q.linksOf(projectId, experimentId))).map((l) => l.saved_metric_id)).toEqual([ids[0]]);
    expect(await check((q) => q.byId(projectId, ids[1]))).toBeUndefined();
    expect(await check((q) => q.nextId())).toBe(Math.max(...ids) + 1);
  });
});
