import jStatModule from 'jstat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type Json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { betaProbabilityBBeatsA, gammaProbabilityBBeatsA } from '../../unit/stats/support/closed-forms';
import { at, createExperiment, expectError, experimentsPath, ingestEvents, send, type TimedEvent } from './helpers';

// /results and /secondary_results over data with exactly known counts: the counts must come out
// exact, and the statistics must match references computed independently of src/stats (Evan
// Miller's closed forms, jStat's distributions, textbook formulas).
const jStat = jStatModule as unknown as {
  beta: { inv(p: number, a: number, b: number): number };
  gamma: { inv(p: number, shape: number, scale: number): number };
  normal: { cdf(x: number, mean: number, sd: number): number };
  chisquare: { cdf(x: number, df: number): number };
};

let s: TestServer;
const T0 = new Date(Date.now() - 2 * 3_600_000).toISOString();
const START = '2024-01-01T00:00:00.000Z';
const ids: Record<string, number> = {};
const range = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const called = (flag: string, distinct_id: string, variant: string, timestamp = at(T0, -1)): TimedEvent => ({
  event: '$feature_flag_called',
  distinct_id,
  timestamp,
  properties: { $feature_flag: flag, $feature_flag_response: variant, [`$feature/${flag}`]: variant },
});

/**
 * Funnel `rf` ($pageview -> purchase): control 100 of 118 convert, test 100 of 110. Ten control
 * persons view anonymously and buy under their own id before identifying: only resolving persons
 * through the merge joins the two. Pageviews before the start date claim the wrong variant.
 */
function funnelEvents(): TimedEvent[] {
  const out: TimedEvent[] = [];
  range(118, 'c').forEach((id, i) => {
    const viewer = i < 10 ? `anon-${id}` : id;
    out.push(called('rf', viewer, 'control'));
    out.push({ event: '$pageview', distinct_id: viewer, timestamp: T0, properties: { '$feature/rf': 'control' } });
    if (i < 100) out.push({ event: 'purchase', distinct_id: id, timestamp: at(T0, 1), properties: { '$feature/rf': 'control' } });
    if (i < 10) out.push({ event: '$identify', distinct_id: id, timestamp: at(T0, 2), properties: { $anon_distinct_id: viewer } });
    if (i >= 100) out.push({ event: '$pageview', distinct_id: id, timestamp: '2023-06-01T00:00:00.000Z', properties: { '$feature/rf': 'test' } });
  });
  range(110, 't').forEach((id, i) => {
    out.push(called('rf', id, 'test'));
    out.push({ event: '$pageview', distinct_id: id, timestamp: T0, properties: { '$feature/rf': 'test' } });
    if (i < 100) out.push({ event: 'purchase', distinct_id: id, timestamp: at(T0, 1), properties: { '$feature/rf': 'test' } });
  });
  return out;
}

/** Trend `rt` (click count): 120 exposed per variant; control 240 clicks, test 300; noise ignored. */
function trendEvents(): TimedEvent[] {
  const out: TimedEvent[] = [];
  const click = (distinct_id: string, variant: unknown): TimedEvent => ({ event: 'click', distinct_id, timestamp: T0, properties: { '$feature/rt': variant } });
  range(120, 'rc').forEach((id) => out.push(called('rt', id, 'control'), click(id, 'control'), click(id, 'control')));
  range(120, 'rt').forEach((id, i) => {
    out.push(called('rt', id, 'test'), click(id, 'test'), click(id, 'test'));
    if (i < 60) out.push(click(id, 'test'));
  });
  out.push(click('rc0', false), click('rc1', 'other'), { event: 'click', distinct_id: 'rc2', timestamp: T0 });
  out.push({ ...click('rc3', 'test'), timestamp: '2023-06-01T00:00:00.000Z' });
  return out;
}

const results = async (id: number, kind = 'results') => {
  const res = await s.api(experimentsPath(s, `${id}/${kind}/`));
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
};

beforeAll(async () => {
  // As `npm start` runs it: projections in a worker thread, so the results cache hears about new
  // events only through the worker's per-batch notices.
  s = await startTestServer({ env: { PROJECTIONS_IN_WORKER: 'true' } });
  await ingestEvents(s, [...funnelEvents(), ...trendEvents()]);
  const funnel = { insight: 'FUNNELS', events: [{ id: '$pageview', order: 0 }, { id: 'purchase', order: 1 }] };
  ids.funnel = (
    await createExperiment(s, {
      name: 'Funnel',
      feature_flag_key: 'rf',
      start_date: START,
      filters: funnel,
      secondary_metrics: [
        { name: 'Purchases', filters: { insight: 'TRENDS', events: [{ id: 'purchase' }] } },
        { name: 'Conversion', filters: funnel },
        { name: 'Nothing yet', filters: { events: [{ id: 'never-sent' }] } },
      ],
    })
  ).id;
  ids.trend = (await createExperiment(s, { name: 'Trend', feature_flag_key: 'rt', start_date: START, filters: { insight: 'TRENDS', events: [{ id: 'click' }] } })).id;
});
afterAll(() => s.close());

describe('funnel results (Beta-binomial)', () => {
  it('counts persons exactly, through merges and within the date range', async () => {
    const body = await results(ids.funnel);
    expect(Object.keys(body).sort()).toEqual(['is_cached', 'last_refresh', 'result']);
    const r = body.result;
    expect(r.insight).toBe('FUNNELS');
    expect(r.variants).toEqual([
      { key: 'control', success_count: 100, failure_count: 18 },
      { key: 'test', success_count: 100, failure_count: 10 },
    ]);
    expect(r.exposures).toEqual({ control: 118, test: 110 });
    expect(r.filters).toMatchObject({ insight: 'FUNNELS', date_from: START, date_to: null, breakdown: '$feature/rf' });
  });

  it('matches closed-form probabilities, jStat credible intervals, the z-test and the SRM chi-square', async () => {
    const r: Json = (await results(ids.funnel)).result;
    const pTest = betaProbabilityBBeatsA(101, 19, 101, 11);
    expect(pTest).toBeCloseTo(0.918, 2); // PostHog's own test_calculate_results value
    expect(r.probability.test).toBeCloseTo(pTest, 6);
    expect(r.probability.control).toBeCloseTo(1 - pTest, 6);
    expect(r.significant).toBe(true);
    expect(r.significance_code).toBe('significant');
    expect(Math.abs(r.expected_loss - 0.0016)).toBeLessThan(5e-4);
    for (const [key, a, b] of [['control', 101, 19], ['test', 101, 11]] as const) {
      expect(r.credible_intervals[key][0]).toBeCloseTo(jStat.beta.inv(0.025, a, b), 4);
      expect(r.credible_intervals[key][1]).toBeCloseTo(jStat.beta.inv(0.975, a, b), 4);
    }
    // Two-proportion z-test, pooled standard error (any statistics textbook).
    const [pt, pc, pooled] = [100 / 110, 100 / 118, 200 / 228];
    const z = (pt - pc) / Math.sqrt(pooled * (1 - pooled) * (1 / 110 + 1 / 118));
    expect(r.frequentist.comparisons.test.z).toBeCloseTo(z, 9);
    expect(r.frequentist.comparisons.test.p_value).toBeCloseTo(2 * (1 - jStat.normal.cdf(Math.abs(z), 0, 1)), 6);
    // Exposures 118/110 against the configured 50/50.
    const chi = (4 * 4 + 4 * 4) / 114;
    expect(r.sample_ratio_mismatch.chi_square).toBeCloseTo(chi, 9);
    expect(r.sample_ratio_mismatch.p_value).toBeCloseTo(1 - jStat.chisquare.cdf(chi, 1), 6);
    expect(r.sample_ratio_mismatch.mismatch).toBe(false);
  });
});

describe('trend results (Gamma-Poisson)', () => {
  it('counts events per variant and exposed persons; matches closed forms and the exact Poisson p-value', async () => {
    const r: Json = (await results(ids.trend)).result;
    expect(r.insight).toBe('TRENDS');
    expect(r.variants).toEqual([
      { key: 'control', count: 240, exposure: 1, absolute_exposure: 120 },
      { key: 'test', count: 300, exposure: 1, absolute_exposure: 120 },
    ]);
    expect(r.probability.test).toBeCloseTo(gammaProbabilityBBeatsA(241, 1, 301, 1), 6);
    // PostHog's count test: conditional on 540 events, test's share is Binomial(540, 1/2).
    let tail = 0;
    for (let k = 300; k <= 540; k++) tail += Math.exp(logChoose(540, k) - 540 * Math.LN2);
    expect(r.p_value).toBeCloseTo(2 * tail, 8);
    expect(r.significance_code).toBe(2 * tail < 0.05 ? 'significant' : 'high_p_value');
    // Rate per exposed person: Gamma(count + 1, scale 1 / absolute exposure), as PostHog.
    expect(r.credible_intervals.test[0]).toBeCloseTo(jStat.gamma.inv(0.025, 301, 1 / 120), 5);
    expect(r.credible_intervals.test[1]).toBeCloseTo(jStat.gamma.inv(0.975, 301, 1 / 120), 5);
    expect(r.frequentist.comparisons.test.rate_ratio).toBeCloseTo(300 / 240, 12);
  });
});

function logChoose(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i++) sum += Math.log(n - k + i) - Math.log(i);
  return sum;
}

describe('secondary results', () => {
  it('one entry per metric: values per variant plus its statistics; a metric without data reports its error', async () => {
    const body = await results(ids.funnel, 'secondary_results');
    const [purchases, conversion, nothing] = body.result;
    expect(purchases).toMatchObject({ name: 'Purchases', result: { control: 100, test: 100 }, insight: 'TRENDS' });
    expect(conversion.name).toBe('Conversion');
    expect(conversion.result.control).toBeCloseTo(100 / 118, 12);
    expect(conversion.result.test).toBeCloseTo(100 / 110, 12);
    expect(conversion.probability.test).toBeCloseTo(betaProbabilityBBeatsA(101, 19, 101, 11), 6);
    expect(nothing).toEqual({ name: 'Nothing yet', result: null, error: { code: 'no_data', detail: 'No control variant data found' } });
  });
});

describe('caching', () => {
  it('serves the cached result until new events arrive for the project or the experiment changes', async () => {
    const first = await results(ids.trend);
    const second = await results(ids.trend);
    expect(second.is_cached).toBe(true);
    expect(second.last_refresh).toBe(first.last_refresh);
    expect(second.result).toEqual(first.result);

    const other = await s.runtime.access.createProject(s.credentials.organization_id, 'Elsewhere', { type: 'system' });
    await ingestEvents(s, [{ event: 'click', distinct_id: 'x', properties: { '$feature/rt': 'test' } }], other.apiToken);
    expect((await results(ids.trend)).is_cached).toBe(true);

    await ingestEvents(s, [{ event: 'click', distinct_id: 'rt0', properties: { '$feature/rt': 'test' } }]);
    const fresh = await results(ids.trend);
    expect(fresh.is_cached).toBe(false);
    expect(fresh.result.variants[1].count).toBe(301);

    await send(s, 'PATCH', experimentsPath(s, `${ids.trend}/`), { description: 'changed' });
    expect((await results(ids.trend)).is_cached).toBe(false);
    expect((await results(ids.trend)).is_cached).toBe(true);
  });
});

describe('results errors', () => {
  it('no data, a draft, and unsupported metrics are 400s', async () => {
    const empty = await createExperiment(s, { name: 'Empty', feature_flag_key: 'empty', start_date: START, filters: { events: [{ id: 'click' }] } });
    const err = await expectError(await s.api(experimentsPath(s, `${empty.id}/results/`)), 400, 'No control variant data found');
    expect(err.code).toBe('no_data');
    const draft = await createExperiment(s, { name: 'Draft', feature_flag_key: 'draft-res', filters: { events: [{ id: 'click' }] } });
    await expectError(await s.api(experimentsPath(s, `${draft.id}/results/`)), 400, /has not started/);
    const actions = await createExperiment(s, { name: 'Actions', feature_flag_key: 'actions', start_date: START, filters: { actions: [{ id: 3 }] } });
    await expectError(await s.api(experimentsPath(s, `${actions.id}/results/`)), 400, /Actions are not supported/, 'filters');
    await expectError(await s.api(experimentsPath(s, '999999/results/')), 404);
  });
});

describe('GET /experiments/requires_flag_implementation/', () => {
  it('is true while the metric events of the last 7 days carry no $feature/<key>', async () => {
    const check = async (query: string) => json(await s.api(experimentsPath(s, `requires_flag_implementation/?${query}`)));
    const events = (...names: string[]) => `events=${encodeURIComponent(JSON.stringify(names.map((id) => ({ id }))))}`;
    expect(await check(events('click'))).toEqual({ result: false });
    expect(await check(`${events('click')}&feature_flag_key=rt`)).toEqual({ result: false });
    expect(await check(`${events('click')}&feature_flag_key=rf`)).toEqual({ result: true });
    expect(await check(events('$identify'))).toEqual({ result: true });
    expect(await check(events('$identify', 'purchase'))).toEqual({ result: false });
    expect(await check('')).toEqual({ result: true });
    await expectError(await s.api(experimentsPath(s, 'requires_flag_implementation/?events=nope')), 400, /JSON list/, 'events');
  });
});
