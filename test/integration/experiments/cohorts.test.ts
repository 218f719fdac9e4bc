import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type Json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { createFlag, evaluate } from '../flags/helpers';
import { at, createExperiment, expectError, experimentsPath, ingestEvents, send, type TimedEvent } from './helpers';

// Exposure cohorts: who is in one (exposed since the start date, resolved through merges, persons
// only), how it grows with new exposures, and its use in flag conditions (cohort in / not_in).
let s: TestServer;
let experiment: Json;
let cohortId: number;
const START = new Date(Date.now() - 3_600_000).toISOString();
const cohortsPath = (rest = '') => `/api/projects/${s.credentials.project_id}/cohorts/${rest}`;
const exposure = (distinct_id: string, minutes = 5, flag = 'ce', extra: Record<string, unknown> = {}): TimedEvent => ({
  event: '$feature_flag_called',
  distinct_id,
  timestamp: at(START, minutes),
  properties: { $feature_flag: flag, $feature_flag_response: 'test', ...extra },
});
const flagsFor = async (distinctId: string) => {
  const body = await evaluate(s, '/flags/?v=2', { token: s.credentials.project_api_key, distinct_id: distinctId });
  expect(body.errorsWhileComputingFlags).toBe(false);
  return { in: body.flags['exposed-only'].enabled as boolean, notIn: body.flags['not-exposed'].enabled as boolean };
};

beforeAll(async () => {
  s = await startTestServer();
  experiment = await createExperiment(s, { name: 'Cohort exp', feature_flag_key: 'ce', start_date: START });
  await ingestEvents(s, [
    ...['u1', 'u2', 'u3', 'u4', 'u5', 'anon-9'].map((id) => exposure(id)),
    exposure('u5', 6), // twice: still one person
    exposure('u6', -10), // before the start date
    exposure('u7', 5, 'some-other-flag'),
    exposure('u8', 5, 'ce', { $process_person_profile: false }), // personless: no person, no membership
    { event: '$pageview', distinct_id: 'u0', timestamp: at(START, 5) },
    { event: '$identify', distinct_id: 'user-9', timestamp: at(START, 7), properties: { $anon_distinct_id: 'anon-9' } },
  ]);
});
afterAll(() => s.close());

describe('POST /experiments/:id/create_exposure_cohort_for_experiment/', () => {
  it('answers 200 with the Experiment, exposure_cohort set', async () => {
    const res = await send(s, 'POST', experimentsPath(s, `${experiment.id}/create_exposure_cohort_for_experiment/`), {});
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ id: experiment.id, feature_flag_key: 'ce', status: 'running' });
    expect(Number.isInteger(body.exposure_cohort)).toBe(true);
    cohortId = body.exposure_cohort;
    expect((await json(await s.api(experimentsPath(s, `${experiment.id}/`)))).exposure_cohort).toBe(cohortId);
  });

  it('refuses a second cohort, a draft experiment and unknown experiments', async () => {
    await expectError(await send(s, 'POST', experimentsPath(s, `${experiment.id}/create_exposure_cohort_for_experiment/`), {}), 400, 'Experiment already has an exposure cohort');
    const draft = await createExperiment(s, { name: 'Draft', feature_flag_key: 'ce-draft' });
    await expectError(await send(s, 'POST', experimentsPath(s, `${draft.id}/create_exposure_cohort_for_experiment/`), {}), 400, 'Experiment does not have a start date');
    await expectError(await send(s, 'POST', experimentsPath(s, '999999/create_exposure_cohort_for_experiment/'), {}), 404);
  });
});

describe('the exposure cohort', () => {
  it('is listed with PostHog\'s cohort shape and holds exactly the exposed persons', async () => {
    const list = await json(await s.api(cohortsPath()));
    expect(list.count).toBe(1);
    const cohort = list.results[0];
    expect(cohort).toMatchObject({
      id: cohortId,
      name: 'Users exposed to experiment "Cohort exp"',
      deleted: false,
      is_static: false,
      is_calculating: false,
      count: 6,
      experiment_set: [experiment.id],
    });
    const behavioural = cohort.filters.properties.values[0].values[0];
    expect(behavioural).toMatchObject({ type: 'behavioral', key: '$feature_flag_called', explicit_datetime: START, event_filters: [{ key: '$feature_flag', value: ['ce'] }] });
    expect(await json(await s.api(cohortsPath(`${cohortId}/`)))).toEqual(cohort);

    const persons = await json(await s.api(cohortsPath(`${cohortId}/persons/`)));
    expect(persons.count).toBe(6);
    const ids = persons.results.map((p: { distinct_ids: string[] }) => [...p.distinct_ids].sort().join('+')).sort();
    expect(ids).toEqual(['anon-9+user-9', 'u1', 'u2', 'u3', 'u4', 'u5']);
    const page = await json(await s.api(cohortsPath(`${cohortId}/persons/?limit=4`)));
    expect(page.results).toHaveLength(4);
    expect(page.next).toContain('offset=4');
    await expectError(await s.api(cohortsPath('999999/')), 404);
  });

  it('grows as new exposures arrive', async () => {
    await ingestEvents(s, [exposure('u10', 30)]);
    expect((await json(await s.api(cohortsPath(`${cohortId}/`)))).count).toBe(7);
  });

  it('drives flag conditions: cohort in / not_in, through merges', async () => {
    const condition = (operator: string) => ({
      groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohortId, operator }], rollout_percentage: 100 }],
    });
    await createFlag(s, { key: 'exposed-only', filters: condition('in') });
    await createFlag(s, { key: 'not-exposed', filters: condition('not_in') });
    for (const id of ['u1', 'u5', 'u10', 'user-9', 'anon-9']) expect(await flagsFor(id), id).toEqual({ in: true, notIn: false });
    for (const id of ['u0', 'u6', 'u7', 'u8', 'never-seen']) expect(await flagsFor(id), id).toEqual({ in: false, notIn: true });
  });
});
