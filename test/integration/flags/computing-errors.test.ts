import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { json } from '../../support/json';
import { createExperiment, experimentsPath, send } from '../experiments/helpers';
import { createFlag, evaluate, ingest } from './helpers';

// A lookup that fails leaves out exactly the flags that needed it, with the error flag set; the
// failures are provoked by swapping one read of the live flag data source for a throwing one.
let s: TestServer;
const person = (key: string, value: unknown) => ({ key, value, type: 'person' });
beforeAll(async () => {
  s = await startTestServer();
  await ingest(s, [{ event: '$identify', distinct_id: 'stored-user', properties: { $set: { plan: 'pro' } } }]);
  await createFlag(s, { key: 'on-for-all', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await createFlag(s, { key: 'off-for-all', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
  await createFlag(s, { key: 'plan-pro', filters: { groups: [{ properties: [person('plan', 'pro')], rollout_percentage: 100 }] } });
  await createFlag(s, { key: 'id-is-12345', filters: { groups: [{ properties: [person('distinct_id', '12345')], rollout_percentage: 100 }] } });
  await createFlag(s, { key: 'uk-only', filters: { groups: [{ properties: [person('$geoip_country_code', 'GB')], rollout_percentage: 100 }] } });
  await createFlag(s, {
    key: 'beta-feature',
    filters: { groups: [{ properties: [], rollout_percentage: 0 }], super_groups: [{ properties: [{ ...person('$feature_enrollment/beta-feature', ['true']), operator: 'exact' }], rollout_percentage: 100 }] },
  });
  // A flag may name only a cohort that exists: an experiment's exposure cohort is one.
  const experiment = await createExperiment(s, { name: 'Cohort source', feature_flag_key: 'cohort-source', start_date: new Date().toISOString() });
  const linked = await json(await send(s, 'POST', experimentsPath(s, `${experiment.id}/create_exposure_cohort_for_experiment/`), {}));
  await createFlag(s, { key: 'in-cohort-5', filters: { groups: [{ properties: [{ key: 'id', value: linked.exposure_cohort, type: 'cohort' }], rollout_percentage: 100 }] } });
});
afterAll(() => s.close());

describe('errors while computing: person lookup', () => {
  it('a failing person lookup leaves person flags out, sets the error flag, and still returns the rest', async () => {
    const source = s.runtime.flagSource;
    const original = source.personProperties;
    source.personProperties = () => {
      throw new Error('person store unavailable');
    };
    try {
      const v2 = await evaluate(s, '/flags/?v=2', { distinct_id: 'stored-user' });
      expect(v2.errorsWhileComputingFlags).toBe(true);
      expect(v2.flags['on-for-all']).toMatchObject({ enabled: true });
      expect(v2.flags['off-for-all']).toMatchObject({ enabled: false });
      for (const personFlag of ['plan-pro', 'id-is-12345', 'uk-only', 'beta-feature']) expect(v2.flags).not.toHaveProperty(personFlag);
      const v3 = await evaluate(s, '/decide/?v=3', { distinct_id: 'stored-user' });
      expect(v3).toMatchObject({ errorsWhileComputingFlags: true, errorComputingFlags: true });
      expect(v3.featureFlags['on-for-all']).toBe(true);
      expect(v3.featureFlags).not.toHaveProperty('plan-pro');
    } finally {
      source.personProperties = original;
    }
    const healthy = await evaluate(s, '/flags/?v=2', { distinct_id: 'stored-user' });
    expect(healthy.errorsWhileComputingFlags).toBe(false);
    expect(healthy.flags['plan-pro'].enabled).toBe(true);
  });
});

describe('errors while computing: cohorts', () => {
  it('a failing cohort lookup errors only the cohort flag; person flags keep their stored answer', async () => {
    const source = s.runtime.flagSource;
    const original = source.personCohorts;
    source.personCohorts = () => {
      throw new Error('cohort store unavailable');
    };
    try {
      const body = await evaluate(s, '/flags/?v=2', { distinct_id: 'stored-user' });
      expect(body.errorsWhileComputingFlags).toBe(true);
      expect(body.flags).not.toHaveProperty('in-cohort-5');
      expect(body.flags['plan-pro'].enabled).toBe(true);
      const unaffected = await evaluate(s, '/flags/?v=2', { distinct_id: 'stored-user', flag_keys_to_evaluate: ['plan-pro'] });
      expect(unaffected.errorsWhileComputingFlags).toBe(false);
    } finally {
      source.personCohorts = original;
    }
    const healthy = await evaluate(s, '/flags/?v=2', { distinct_id: 'stored-user' });
    expect(healthy.flags['in-cohort-5']).toMatchObject({ enabled: false });
  });

  it('a cohort lookup that fails asynchronously (the store answers with an error) errors only the cohort flag', async () => {
    const source = s.runtime.flagSource;
    const original = source.personCohorts;
    source.personCohorts = async () => {
      throw new Error('cohort store unavailable');
    };
    try {
      const body = await evaluate(s, '/flags/?v=2', { distinct_id: 'stored-user' });
      expect(body.errorsWhileComputingFlags).toBe(true);
      expect(body.flags).not.toHaveProperty('in-cohort-5');
      expect(body.flags['plan-pro'].enabled).toBe(true);
    } finally {
      source.personCohorts = original;
    }
  });
});
