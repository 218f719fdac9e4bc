import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inParallel } from '../integration/flags/helpers';
import { createExperiment, experimentsPath, send } from '../integration/experiments/helpers';
import { json, type Json } from '../support/json';
import { posthogClient, settle } from '../support/posthog';
import { startTestServer, type TestServer } from '../support/server';

// The official SDK runs two experiments end to end: it evaluates each experiment's flag for 2,000
// users (remote evaluation for one, local for the other), sends `$feature_flag_called` itself, and
// sends conversions. With a true uplift for `test`, /results must call `test` the significant
// winner; in the A/A run (equal conversion rates) nothing is significant.
let s: TestServer;
const USERS = Array.from({ length: 2000 }, (_, i) => `sdk-exp-user-${i}`);
// Other people for the A/A run: the uplift run's purchases must not count as A/A conversions.
const AA_USERS = Array.from({ length: 2000 }, (_, i) => `sdk-aa-user-${i}`);
const funnel = { insight: 'FUNNELS', events: [{ id: '$feature_flag_called', order: 0 }, { id: 'purchase', order: 1 }] };

/**
 * Conversion without randomness: within each variant, users convert by their rank, so the rate is
 * exact (10% vs 20% with uplift, 15% for both in the A/A run) and the test knows every count.
 */
function plan(assigned: string[], rates: Record<string, number>) {
  const seen: Record<string, number> = {};
  return assigned.map((variant) => {
    const rank = (seen[variant] = (seen[variant] ?? 0) + 1) - 1;
    return rank % 20 < rates[variant] * 20;
  });
}
const tally = (assigned: string[], converts: boolean[]) => {
  const out: Record<string, { success: number; failure: number }> = {};
  assigned.forEach((v, i) => {
    out[v] ??= { success: 0, failure: 0 };
    out[v][converts[i] ? 'success' : 'failure']++;
  });
  return out;
};
const results = async (id: number): Promise<Json> => {
  const res = await s.api(experimentsPath(s, `${id}/results/`));
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.result;
};

// Each batch's timestamps are re-anchored on the server clock (sent_at skew correction), so two
// batches sent milliseconds apart can swap a flag call and the purchase right after it. A real
// purchase comes seconds after the exposure; say so, so the funnel order does not hinge on latency.
const later = () => new Date(Date.now() + 2000);

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('posthog-node drives experiments end to end', () => {
  it('uplift: remote evaluation for 2,000 users, test wins significantly; the exposure cohort is exactly the exposed', async () => {
    const start = new Date(Date.now() - 60_000).toISOString();
    const exp = await createExperiment(s, { name: 'Uplift', feature_flag_key: 'checkout-uplift', start_date: start, filters: funnel });
    const client = posthogClient(s);
    const assigned = await inParallel(USERS, 8, async (id) => String(await client.getFeatureFlag('checkout-uplift', id)));
    expect(new Set(assigned)).toEqual(new Set(['control', 'test']));
    const converts = plan(assigned, { control: 0.1, test: 0.2 });
    USERS.forEach((id, i) => {
      if (converts[i]) client.capture({ distinctId: id, event: 'purchase', properties: { '$feature/checkout-uplift': assigned[i] }, timestamp: later() });
    });
    await client.shutdown();
    await settle(s);

    const r = await results(exp.id);
    const expected = tally(assigned, converts);
    expect(r.variants).toEqual(['control', 'test'].map((key) => ({ key, success_count: expected[key].success, failure_count: expected[key].failure })));
    expect(r.exposures).toEqual({ control: expected.control.success + expected.control.failure, test: expected.test.success + expected.test.failure });
    expect(r.significant).toBe(true);
    expect(r.significance_code).toBe('significant');
    expect(r.probability.test).toBeGreaterThan(0.99);
    expect(r.frequentist.comparisons.test.significant).toBe(true);
    expect(r.sample_ratio_mismatch.mismatch).toBe(false);

    const linked = await json(await send(s, 'POST', experimentsPath(s, `${exp.id}/create_exposure_cohort_for_experiment/`), {}));
    const cohort = `/api/projects/${s.credentials.project_id}/cohorts/${linked.exposure_cohort}`;
    expect((await json(await s.api(`${cohort}/`))).count).toBe(USERS.length);
    const members = new Set<string>();
    for (const offset of [0, 1000]) {
      const page = await json(await s.api(`${cohort}/persons/?limit=1000&offset=${offset}`));
      for (const p of page.results as { distinct_ids: string[] }[]) for (const d of p.distinct_ids) members.add(d);
    }
    expect([...members].sort()).toEqual([...USERS].sort());
  });

  it('A/A: local evaluation for 2,000 users, equal rates, not significant', async () => {
    const start = new Date(Date.now() - 60_000).toISOString();
    const exp = await createExperiment(s, { name: 'A/A', feature_flag_key: 'checkout-aa', start_date: start, filters: funnel });
    const client = posthogClient(s, { personalApiKey: s.credentials.personal_api_key });
    const assigned = await inParallel(AA_USERS, 8, async (id) => String(await client.getFeatureFlag('checkout-aa', id, { onlyEvaluateLocally: true })));
    const converts = plan(assigned, { control: 0.15, test: 0.15 });
    // sendFeatureFlags: the SDK attaches $feature/<key> itself, from its local evaluation.
    AA_USERS.forEach((id, i) => {
      if (converts[i]) client.capture({ distinctId: id, event: 'purchase', sendFeatureFlags: true, timestamp: later() });
    });
    await client.shutdown();
    await settle(s);

    const r = await results(exp.id);
    const expected = tally(assigned, converts);
    expect(r.variants).toEqual(['control', 'test'].map((key) => ({ key, success_count: expected[key].success, failure_count: expected[key].failure })));
    expect(r.significant).toBe(false);
    expect(['low_win_probability', 'high_loss']).toContain(r.significance_code);
    expect(r.frequentist.comparisons.test.significant).toBe(false);
  });
});
