import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentStream, type Actor } from '../../../streams';
import { experimentsProjection } from '../../../projections/experiments';
import { experimentQueries } from '../../../projections/experiments-queries';
import { json } from '../../support/json';
import { settle } from '../../support/posthog';
import { startTestServer, type TestServer } from '../../support/server';
import { createExperiment, experimentsPath, send } from '../experiments/helpers';
import { bothStores, pgUserForSuite, type FoldedStores } from './folded-stores';

const USER = await pgUserForSuite();

describe.runIf(USER !== null)('experiments read model on SQLite and PostgreSQL', () => {
  const fold = bothStores(USER!, 'rm_experiments');
  let s: TestServer;
  let stores: FoldedStores;
  const ids: Record<string, number> = {};
  let projectId: number;

  beforeAll(async () => {
    s = await startTestServer();
    projectId = s.credentials.project_id;
    const actor: Actor = { type: 'user', id: (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!.id };
    const patch = async (id: number, body: Record<string, unknown>) => {
      const res = await send(s, 'PATCH', experimentsPath(s, `${id}/`), body);
      expect(res.status, JSON.stringify(await json(res))).toBe(200);
    };
    ids.draft = (await createExperiment(s, { name: 'Draft', description: 'Not yet', feature_flag_key: 'draft-flag' })).id;
    ids.launched = (
      await createExperiment(s, {
        name: 'Launched',
        feature_flag_key: 'launched-flag',
        parameters: { feature_flag_variants: [{ key: 'control', rollout_percentage: 34 }, { key: 'a', rollout_percentage: 33 }, { key: 'b', rollout_percentage: 33 }] },
        secondary_metrics: [{ name: 'Views', filters: { events: [{ id: '$pageview' }] } }],
        filters: { events: [{ id: 'purchase' }] },
      })
    ).id;
    await patch(ids.launched, { start_date: '2026-02-01T00:00:00Z', description: 'Running' });
    expect((await send(s, 'POST', experimentsPath(s, `${ids.launched}/create_exposure_cohort_for_experiment/`))).status).toBe(200);
    ids.ended = (await createExperiment(s, { name: 'Ended', feature_flag_key: 'ended-flag', start_date: '2026-01-01T00:00:00Z' })).id;
    await patch(ids.ended, { end_date: '2026-01-20T00:00:00Z' });
    ids.archived = (await createExperiment(s, { name: 'Old', feature_flag_key: 'old-flag', archived: true })).id;
    ids.unarchived = (await createExperiment(s, { name: 'Back', feature_flag_key: 'back-flag', archived: true })).id;
    await patch(ids.unarchived, { archived: false, name: 'Back again' });
    ids.deleted = (await createExperiment(s, { name: 'Deleted', feature_flag_key: 'deleted-flag' })).id;
    expect((await send(s, 'DELETE', experimentsPath(s, `${ids.deleted}/`))).status).toBe(204);
    for (let i = 0; i < 3; i++) ids[`bulk${i}`] = (await createExperiment(s, { name: `Bulk ${i}`, feature_flag_key: `bulk-${i}` })).id;
    // A creation that crashed before its flag: never visible.
    ids.half = await s.runtime.experiments.queries.experiments.nextId();
    await s.runtime.log.append(
      experimentStream(ids.half),
      [
        {
          type: 'ExperimentCreated',
          data: { experimentId: ids.half, projectId, name: 'Half made', description: '', startDate: null, endDate: null, featureFlagKey: 'half-made', parameters: null, secondaryMetrics: [], filters: {}, archived: false, createdBy: null },
        },
      ],
      { expectedRevision: 'no_stream', context: { actor, projectId } },
    );
    await settle(s);
    stores = await fold(s.runtime.log, [experimentsProjection], { withFlags: true });
  });

  afterAll(async () => {
    await stores?.close();
    await s?.close();
  });

  it('folds the same rows (equal digests)', async () => {
    const { sqlite, postgres } = await stores.digests([experimentsProjection]);
    expect(postgres).toEqual(sqlite);
    const rows = await stores.both((db) => db.all('SELECT * FROM experiments ORDER BY id'));
    expect(rows.postgres).toEqual(rows.sqlite);
    expect(rows.sqlite).toHaveLength(Object.keys(ids).length);
  });

  it('answers every query the same', async () => {
    const check = async <T>(query: (q: ReturnType<typeof experimentQueries>) => Promise<T>) => {
      const { sqlite, postgres } = await stores.both((db) => query(experimentQueries(db)));
      expect(postgres).toEqual(sqlite);
      return sqlite;
    };
    expect(await check((q) => q.nextId())).toBe(ids.half + 1);
    for (const id of Object.values(ids)) await check((q) => q.byId(projectId, id));
    for (const gone of [ids.deleted, ids.half]) expect(await check((q) => q.byId(projectId, gone))).toBeUndefined();
    expect(await check((q) => q.byId(projectId + 1, ids.draft))).toBeUndefined();
    const launched = (await check((q) => q.byId(projectId, ids.launched)))!;
    expect(launched).toMatchObject({ start_date: '2026-02-01T00:00:00.000Z', archived: false, feature_flag: { key: 'launched-flag', active: true, deleted: false } });
    expect(launched.exposure_cohort).toEqual(expect.any(Number));
    expect(launched.secondary_metrics).toEqual([{ name: 'Views', filters: { events: [{ id: '$pageview' }] } }]);

    const live = await check((q) => q.list(projectId, 100, 0));
    expect(live.count).toBe(7);
    expect(live.rows.map((r) => r.id)).toEqual([...live.rows.map((r) => r.id)].sort((a, b) => b - a));
    const pages = [await check((q) => q.list(projectId, 3, 0)), await check((q) => q.list(projectId, 3, 3)), await check((q) => q.list(projectId, 3, 6))];
    expect(pages.flatMap((p) => p.rows.map((r) => r.id))).toEqual(live.rows.map((r) => r.id));
    expect((await check((q) => q.list(projectId, 100, 0, true))).rows.map((r) => r.id)).toEqual([ids.archived]);
    expect((await check((q) => q.list(projectId + 1, 100, 0))).count).toBe(0);
  });
});
