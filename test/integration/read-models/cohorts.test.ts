import { afterAll, beforeAll, expect, it } from 'vitest';
import { cohortsProjection } from '../../../projections/cohorts';
import { experimentsProjection } from '../../../projections/experiments';
import { ingestionProjection } from '../../../projections/ingestion';
import { cohortQueries } from '../../../projections/cohorts-queries';
import { CohortService } from '../../../src/cohorts';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { at, createExperiment, experimentsPath, ingestEvents, send, type TimedEvent } from '../experiments/helpers';
import { foldIntoBoth, postgresForReadModels, type FoldedStores } from './folded-stores';

const schemas = await postgresForReadModels('rm_cohorts');

if (schemas) {
  let s: TestServer;
  let folded: FoldedStores;
  const cohortIds: number[] = [];
  const START = new Date(Date.now() - 3_600_000).toISOString();
  const exposure = (distinct_id: string, minutes: number, flag: string, extra: Record<string, unknown> = {}): TimedEvent => ({
    event: '$feature_flag_called',
    distinct_id,
    timestamp: at(START, minutes),
    properties: { $feature_flag: flag, $feature_flag_response: 'test', ...extra },
  });

  beforeAll(async () => {
    s = await startTestServer();
    const projectId = s.credentials.project_id;
    const experiments = [];
    for (const key of ['exp-a', 'exp-b', 'exp-c']) experiments.push(await createExperiment(s, { name: `Experiment ${key}`, feature_flag_key: key, start_date: START }));
    // Exposures before and after the start, repeated (the later time is kept, then an earlier one
    // must not win), across flags, personless, and an anonymous id merged into a user afterwards.
    await ingestEvents(s, [
      ...['u1', 'u2', 'u3', 'anon-9'].map((id) => exposure(id, 5, 'exp-a')),
      exposure('u2', 9, 'exp-a'),
      exposure('u2', 1, 'exp-a'),
      exposure('u4', -10, 'exp-a'),
      exposure('u4', 20, 'exp-b'),
      exposure('u1', 30, 'exp-b'),
      exposure('u5', 5, 'exp-a', { $process_person_profile: false }),
      exposure('u6', 5, 'exp-c'),
      { event: '$pageview', distinct_id: 'u0', timestamp: at(START, 5) },
      { event: '$identify', distinct_id: 'user-9', timestamp: at(START, 7), properties: { $anon_distinct_id: 'anon-9' } },
      { event: '$identify', distinct_id: 'user-9', timestamp: at(START, 8), properties: { $set: { plan: 'pro' } } },
    ]);
    for (const experiment of experiments) {
      const res = await send(s, 'POST', experimentsPath(s, `${experiment.id}/create_exposure_cohort_for_experiment/`), {});
      expect(res.status).toBe(200);
      cohortIds.push((await json(res)).exposure_cohort);
    }
    // An exposure after the cohorts exist; a deleted cohort; a cohort whose experiment never linked it.
    await ingestEvents(s, [exposure('user-9', 40, 'exp-b')]);
    const cohorts = new CohortService({ log: s.runtime.log, cohorts: s.runtime.queries.cohorts });
    await cohorts.delete(projectId, cohortIds[2], { type: 'system' });
    const orphan = await cohorts.createExposureCohort(projectId, { experimentId: experiments[0].id, experimentName: 'orphan', flagKey: 'exp-a', since: START }, { type: 'system' });
    cohortIds.push(orphan.cohortId);
    await s.runtime.runner.waitFor(await s.runtime.log.head(), null);
    // The cohort queries join persons (through merges) and experiment links: their projections fold too.
    folded = await foldIntoBoth(s.runtime.log, [ingestionProjection, experimentsProjection, cohortsProjection], schemas);
  }, 90_000);

  afterAll(async () => {
    await folded?.close();
    await s?.close();
  });

  it('folds the same rows on SQLite and PostgreSQL (equal digests), the same rows as the live store', async () => {
    const { sqlite, postgres } = await folded.digests();
    expect(postgres).toEqual(sqlite);
    const live = s.runtime.readModels.readmodels.session;
    for (const [table, order] of [['cohorts', 'id'], ['cohort_flag_exposures', 'project_id, flag_key, distinct_id']])
      expect(await folded.postgres.all(`SELECT * FROM ${table} ORDER BY ${order}`)).toEqual(await live.all(`SELECT * FROM ${table} ORDER BY ${order}`));
    // The repeated exposure kept its latest time.
    expect(await folded.postgres.get(`SELECT last_timestamp FROM cohort_flag_exposures WHERE distinct_id = 'u2'`)).toEqual({ last_timestamp: at(START, 9) });
  });

  it('answers every cohort query the same on both stores', async () => {
    const [a, b] = [cohortQueries(folded.sqlite), cohortQueries(folded.postgres)];
    const both = async <T>(q: (x: typeof a) => Promise<T>) => {
      const [x, y] = [await q(a), await q(b)];
      expect(y).toEqual(x);
      return x;
    };
    const p = s.credentials.project_id;
    expect(await both((q) => q.nextId())).toBe(cohortIds.length + 1);
    const listed = await both((q) => q.list(p, 10, 0));
    // The deleted cohort and the unlinked one are not visible.
    expect(listed.rows.map((c) => c.id)).toEqual([cohortIds[1], cohortIds[0]]);
    expect(listed.rows.map((c) => c.count)).toEqual([3, 4]);
    expect((await both((q) => q.list(p, 1, 1))).rows.map((c) => c.id)).toEqual([cohortIds[0]]);
    expect((await both((q) => q.list(999, 10, 0))).count).toBe(0);
    for (const id of [...cohortIds, 999]) {
      await both((q) => q.byId(p, id));
      await both((q) => q.members(p, id, 100, 0));
    }
    expect(await both((q) => q.byId(p, cohortIds[2]))).toBeUndefined();
    expect(await both((q) => q.members(p, cohortIds[0], 2, 1))).toHaveLength(2);
    for (const distinctId of ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'anon-9', 'user-9', 'u0', 'nobody'])
      await both((q) => q.cohortIdsOf(p, distinctId));
    expect(await both((q) => q.cohortIdsOf(p, 'anon-9'))).toEqual([cohortIds[0], cohortIds[1]]);
    expect(await both((q) => q.cohortIdsOf(p, 'u4'))).toEqual([cohortIds[1]]);
  });
}
