import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseMetric, type Arm, type StatsConfig } from '../../../src/stats/v2';
import { json, type Json } from '../../support/json';
import { posthogClient, settle } from '../../support/posthog';
import { startTestServer, type TestServer } from '../../support/server';
import { createExperiment, experimentsPath, send } from './helpers';

// PostHog's query endpoint for experiments (compat §15.2), end to end: posthog-node sends the
// exposures, pre-exposure activity and conversions; the endpoint's sufficient statistics must equal
// the ones this test computes from what it sent, and its statistics the module's on those.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const DAY = 86_400_000;
const USERS = 240;
const start = Date.now() - 12 * DAY;
const flagKey = 'query-checkout';

const meanMetric = { kind: 'ExperimentMetric', metric_type: 'mean', uuid: 'm-mean', source: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' } };
const funnelMetric = { kind: 'ExperimentMetric', metric_type: 'funnel', uuid: 'm-funnel', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'purchase' }] };
const ratioMetric = {
  kind: 'ExperimentMetric',
  metric_type: 'ratio',
  uuid: 'm-ratio',
  numerator: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' },
  denominator: { kind: 'EventsNode', event: '$pageview' },
};

/** A retention metric from pageviews to purchases, [0, 7] days from the first start, with `overrides`. */
const retentionMetric = (overrides: Record<string, unknown>) => ({
  kind: 'ExperimentMetric',
  metric_type: 'retention',
  start_event: { kind: 'EventsNode', event: '$pageview' },
  completion_event: { kind: 'EventsNode', event: 'purchase' },
  retention_window_start: 0,
  retention_window_end: 7,
  retention_window_unit: 'day',
  start_handling: 'first_seen',
  ...overrides,
});

/** What each user does, chosen without randomness so the test knows every sum. */
interface Plan {
  id: string;
  variant: 'control' | 'test';
  /** The `currency` property of every purchase of the user (metric source filters read it). */
  currency: 'USD' | 'EUR';
  /** `$browser` on the exposure (breakdowns read it); absent for some. */
  browser?: string;
  exposedAt: number;
  pre: number[];
  pageviews: number;
  purchases: number[];
}
const plans: Plan[] = Array.from({ length: USERS }, (_, i) => {
  const variant = i % 2 === 0 ? 'control' : 'test';
  const loyal = i % 5;
  const uplift = variant === 'test' ? 1.25 : 1;
  return {
    id: `query-user-${i}`,
    variant,
    currency: i % 3 === 0 ? 'EUR' : 'USD',
    browser: i % 7 === 0 ? undefined : i % 3 === 1 ? 'Safari' : 'Chrome',
    // Exposures spread over 9 days, so an earlier end date sees fewer users.
    exposedAt: start + DAY + Math.floor((i / USERS) * 9 * DAY),
    pre: loyal >= 2 ? [10 + loyal * 3] : [],
    pageviews: 1 + (i % 3),
    purchases: i % 4 === 0 ? [] : [Math.round((8 + loyal * 4 + (i % 7)) * uplift * 100) / 100],
  };
});

async function sendPlans() {
  const client = posthogClient(s);
  for (const p of plans) {
    // Pre-exposure activity 3 days before, inside the 7-day CUPED lookback.
    for (const amount of p.pre) client.capture({ distinctId: p.id, event: 'purchase', properties: { amount, currency: p.currency }, timestamp: new Date(p.exposedAt - 3 * DAY) });
    client.capture({
      distinctId: p.id,
      event: '$feature_flag_called',
      properties: { $feature_flag: flagKey, $feature_flag_response: p.variant, ...(p.browser ? { $browser: p.browser } : {}) },
      timestamp: new Date(p.exposedAt),
    });
    for (let v = 0; v < p.pageviews; v++) client.capture({ distinctId: p.id, event: '$pageview', timestamp: new Date(p.exposedAt + (v + 1) * 60_000) });
    for (const amount of p.purchases) client.capture({ distinctId: p.id, event: 'purchase', properties: { amount, currency: p.currency }, timestamp: new Date(p.exposedAt + 10 * 60_000) });
  }
  await client.shutdown();
  await settle(s);
}

/**
 * Sufficient statistics computed here from the plan, independently of the service; `counted`: the
 * purchases a source's filters keep (by the user's currency).
 */
function expectedSums(until: number, counted: (p: Plan) => boolean = () => true, among: (p: Plan) => boolean = () => true) {
  const arms = { control: [] as Plan[], test: [] as Plan[] };
  for (const p of plans) if (p.exposedAt <= until && among(p)) arms[p.variant].push(p);
  const sum = (list: Plan[], f: (p: Plan) => number) => list.reduce((acc, p) => acc + f(p), 0);
  const y = (p: Plan) => (counted(p) ? p.purchases.reduce((a, b) => a + b, 0) : 0);
  const x = (p: Plan) => (counted(p) ? p.pre.reduce((a, b) => a + b, 0) : 0);
  const converted = (p: Plan) => (counted(p) && p.purchases.length > 0 && p.pageviews > 0 ? 1 : 0);
  const pre = (p: Plan) => (counted(p) && p.pre.length > 0 ? 1 : 0);
  const out = (list: Plan[]) => ({
    mean: { n: list.length, sum: sum(list, y), ss: sum(list, (p) => y(p) ** 2), cx: sum(list, x), cxx: sum(list, (p) => x(p) ** 2), cxy: sum(list, (p) => x(p) * y(p)) },
    funnel: { n: list.length, sum: sum(list, converted), cx: sum(list, pre), cxx: sum(list, pre), cxy: sum(list, (p) => pre(p) * converted(p)) },
    ratio: { n: list.length, m: sum(list, y), mm: sum(list, (p) => y(p) ** 2), d: sum(list, (p) => p.pageviews), dd: sum(list, (p) => p.pageviews ** 2), md: sum(list, (p) => y(p) * p.pageviews) },
  });
  return { control: out(arms.control), test: out(arms.test) };
}

const bayesianCuped: StatsConfig = {
  method: 'bayesian',
  bayesian: { ciLevel: 0.95, differenceType: 'RELATIVE' },
  frequentist: { alpha: 0.05, differenceType: 'RELATIVE', sequentialTestingEnabled: false, sequentialTuningParameter: 5000 },
  cuped: { enabled: true },
};

async function query(id: number, metric: unknown, path: 'projects' | 'environments' = 'projects'): Promise<Json> {
  const res = await s.api(`/api/${path}/${s.credentials.project_id}/query/`, {
    method: 'POST',
    body: JSON.stringify({ query: { kind: 'ExperimentQuery', metric, experiment_id: id }, refresh: 'force_async' }),
  });
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** A mean metric's answer against the sums expected here: samples, sums and the CUPED covariate, per arm. */
function expectMeanSums(r: Json, e: ReturnType<typeof expectedSums>) {
  for (const [arm, got] of [['control', r.baseline], ['test', r.variant_results[0]]] as const) {
    const want = e[arm].mean;
    expect(got).toMatchObject({ key: arm, number_of_samples: want.n });
    expect(got.sum).toBeCloseTo(want.sum, 6);
    expect(got.sum_squares).toBeCloseTo(want.ss, 4);
    expect(got.covariate_sum).toBeCloseTo(want.cx, 6);
    expect(got.covariate_sum_squares).toBeCloseTo(want.cxx, 6);
    expect(got.covariate_sum_product).toBeCloseTo(want.cxy, 4);
  }
}

describe('POST /api/projects/:id/query/ with an ExperimentQuery', () => {
  let id: number;

  beforeAll(async () => {
    const e = await createExperiment(s, {
      name: 'Query',
      feature_flag_key: flagKey,
      start_date: new Date(start).toISOString(),
      metrics: [meanMetric, funnelMetric, ratioMetric],
      stats_config: { method: 'bayesian', cuped: { enabled: true, lookback_days: 7 } },
    });
    id = e.id as number;
    await sendPlans();
  }, 120_000);

  it('mean with CUPED: the sufficient statistics and the covariate are those of the events sent, and the outcome is the module’s', async () => {
    const r = await query(id, meanMetric);
    const e = expectedSums(Date.now());
    expectMeanSums(r, e);
    const arm = (key: string, m: ReturnType<typeof expectedSums>['control']['mean']): Arm => ({
      key,
      statistic: { kind: 'mean', n: m.n, sum: m.sum, sumSquares: m.ss },
      covariate: { sum: m.cx, sumSquares: m.cxx, sumProducts: m.cxy },
    });
    const module = analyseMetric('mean', arm('control', e.control.mean), [arm('test', e.test.mean)], bayesianCuped).variants[0]!.outcome;
    expect(module.method).toBe('bayesian');
    if (module.method !== 'bayesian') return;
    expect(r.variant_results[0].method).toBe('bayesian');
    expect(r.variant_results[0].chance_to_win).toBeCloseTo(module.chance_to_win!, 9);
    expect(r.variant_results[0].credible_interval[0]).toBeCloseTo(module.credible_interval![0], 9);
    expect(r.variant_results[0].credible_interval[1]).toBeCloseTo(module.credible_interval![1], 9);
    expect(r.variant_results[0].significant).toBe(module.significant);
    expect(r.variant_results[0].chance_to_win).toBeGreaterThan(0.9);
  });

  it('funnel with CUPED: step counts, conversions and the pre-exposure covariate', async () => {
    const r = await query(id, funnelMetric, 'environments');
    const e = expectedSums(Date.now());
    for (const [arm, got] of [['control', r.baseline], ['test', r.variant_results[0]]] as const) {
      const want = e[arm].funnel;
      expect(got).toMatchObject({ key: arm, number_of_samples: want.n, sum: want.sum, sum_squares: want.sum, step_counts: [want.n, want.sum] });
      expect(got).toMatchObject({ covariate_sum: want.cx, covariate_sum_squares: want.cxx, covariate_sum_product: want.cxy });
    }
    const arm = (key: string, f: ReturnType<typeof expectedSums>['control']['funnel']): Arm => ({
      key,
      statistic: { kind: 'proportion', n: f.n, sum: f.sum },
      covariate: { sum: f.cx, sumSquares: f.cxx, sumProducts: f.cxy },
    });
    const module = analyseMetric('funnel', arm('control', e.control.funnel), [arm('test', e.test.funnel)], bayesianCuped).variants[0]!.outcome;
    if (module.method !== 'bayesian') throw new Error('expected a Bayesian outcome');
    expect(r.variant_results[0].chance_to_win).toBeCloseTo(module.chance_to_win!, 9);
  });

  it('ratio: numerator, denominator and their cross product (no CUPED for ratios)', async () => {
    const r = await query(id, ratioMetric);
    const e = expectedSums(Date.now());
    for (const [arm, got] of [['control', r.baseline], ['test', r.variant_results[0]]] as const) {
      const want = e[arm].ratio;
      expect(got.number_of_samples).toBe(want.n);
      expect(got.sum).toBeCloseTo(want.m, 6);
      expect(got.sum_squares).toBeCloseTo(want.mm, 4);
      expect(got.denominator_sum).toBe(want.d);
      expect(got.denominator_sum_squares).toBe(want.dd);
      expect(got.numerator_denominator_sum_product).toBeCloseTo(want.md, 4);
      expect(got).not.toHaveProperty('covariate_sum');
    }
    const arm = (key: string, q: ReturnType<typeof expectedSums>['control']['ratio']): Arm => ({
      key,
      statistic: { kind: 'ratio', n: q.n, numerator: { sum: q.m, sumSquares: q.mm }, denominator: { sum: q.d, sumSquares: q.dd }, sumProducts: q.md },
    });
    const module = analyseMetric('ratio', arm('control', e.control.ratio), [arm('test', e.test.ratio)], bayesianCuped).variants[0]!.outcome;
    if (module.method !== 'bayesian') throw new Error('expected a Bayesian outcome');
    expect(r.variant_results[0].chance_to_win).toBeCloseTo(module.chance_to_win!, 9);
  });

  it('property filters on metric sources: only the events whose properties match count, the covariate too', async () => {
    const usd = { key: 'currency', value: 'USD', operator: 'exact', type: 'event' };
    const filteredMean = { ...meanMetric, uuid: 'm-mean-usd', source: { ...meanMetric.source, properties: [usd] } };
    const r = await query(id, filteredMean);
    const e = expectedSums(Date.now(), (p) => p.currency === 'USD');
    // Every exposed user is a sample; those whose purchases do not match count as 0.
    expectMeanSums(r, e);
    expect(r.baseline.sum).toBeLessThan((await query(id, meanMetric)).baseline.sum);

    // A funnel whose last step is a purchase not in USD (`is_not`), and several filters on one source (all must hold).
    const notUsd = { ...usd, operator: 'is_not' };
    const filteredFunnel = { ...funnelMetric, uuid: 'm-funnel-eur', series: [funnelMetric.series[0], { kind: 'EventsNode', event: 'purchase', properties: [notUsd, { key: 'amount', value: 0, operator: 'gt', type: 'event' }] }] };
    const f = await query(id, filteredFunnel);
    const eur = expectedSums(Date.now(), (p) => p.currency === 'EUR');
    for (const [arm, got] of [['control', f.baseline], ['test', f.variant_results[0]]] as const) {
      const want = eur[arm].funnel;
      expect(got).toMatchObject({ key: arm, number_of_samples: want.n, sum: want.sum, step_counts: [want.n, want.sum] });
      expect(got).toMatchObject({ covariate_sum: want.cx, covariate_sum_product: want.cxy });
    }
  });

  it('breakdowns: per value of the exposure event\'s property, the statistics of its entities; the overall ones unchanged', async () => {
    const broken = { ...meanMetric, uuid: 'm-mean-browser', breakdownFilter: { breakdowns: [{ property: '$browser', type: 'event' }] } };
    const r = await query(id, broken);
    const plain = await query(id, meanMetric);
    expect(r.baseline).toEqual(plain.baseline);
    expect(r.variant_results).toEqual(plain.variant_results);
    const results = r.breakdown_results as { breakdown_value: string[]; baseline: Json; variants: Json[] }[];
    expect(results.map((b) => b.breakdown_value).sort()).toEqual([['$$_posthog_breakdown_null_$$'], ['Chrome'], ['Safari']]);
    for (const b of results) {
      const value = b.breakdown_value[0];
      const e = expectedSums(Date.now(), () => true, (p) => (p.browser ?? '$$_posthog_breakdown_null_$$') === value);
      expectMeanSums({ baseline: b.baseline, variant_results: b.variants }, e);
    }
    // No breakdowns asked: no breakdown_results.
    expect(plain).not.toHaveProperty('breakdown_results');
    // More than three, or another type, is a 400.
    const four = { ...meanMetric, breakdownFilter: { breakdowns: [1, 2, 3, 4].map((n) => ({ property: `p${n}` })) } };
    const person = { ...meanMetric, breakdownFilter: { breakdowns: [{ property: 'plan', type: 'person' }] } };
    for (const metric of [four, person]) {
      const res = await s.api(`/api/projects/${s.credentials.project_id}/query/`, { method: 'POST', body: JSON.stringify({ query: { kind: 'ExperimentQuery', metric, experiment_id: id } }) });
      expect(res.status).toBe(400);
    }
  });

  it('refuses property filters it cannot read on an event (a person property) with a 400 naming them', async () => {
    const personFiltered = { ...meanMetric, source: { ...meanMetric.source, properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }] } };
    const res = await s.api(`/api/projects/${s.credentials.project_id}/query/`, {
      method: 'POST',
      body: JSON.stringify({ query: { kind: 'ExperimentQuery', metric: personFiltered, experiment_id: id } }),
    });
    const body = await json(res);
    expect(res.status).toBe(400);
    expect(body.detail).toMatch(/type 'person' on metric sources are not supported here/);
  });

  // Before the frequentist test below, which switches the experiment's method and sets an end date.
  it('retention: of the entities that did the start event after exposure, those with a completion in the window; analysed as a ratio', async () => {
    // Start: each user's last pageview after exposure; completion: a purchase later that same UTC day ([0, 0] days).
    const metric = retentionMetric({ uuid: 'm-retention', retention_window_end: 0, start_handling: 'last_seen' });
    const r = await query(id, metric);
    const utcDay = (ms: number) => Math.floor(ms / DAY);
    for (const [arm, got] of [['control', r.baseline], ['test', r.variant_results[0]]] as const) {
      const started = plans.filter((p) => p.variant === arm && p.pageviews > 0);
      const retained = started.filter((p) => p.purchases.length > 0 && utcDay(p.exposedAt + 10 * 60_000) === utcDay(p.exposedAt + p.pageviews * 60_000)).length;
      expect(got).toMatchObject({
        key: arm,
        number_of_samples: started.length,
        sum: retained,
        sum_squares: retained,
        denominator_sum: started.length,
        denominator_sum_squares: started.length,
        numerator_denominator_sum_product: retained,
      });
    }
    const ratioArm = (key: string, n: number, m: number): Arm => ({ key, statistic: { kind: 'ratio', n, numerator: { sum: m, sumSquares: m }, denominator: { sum: n, sumSquares: n }, sumProducts: m } });
    const module = analyseMetric(
      'retention',
      ratioArm('control', r.baseline.number_of_samples, r.baseline.sum),
      [ratioArm('test', r.variant_results[0].number_of_samples, r.variant_results[0].sum)],
      bayesianCuped,
    ).variants[0]!.outcome;
    if (module.method !== 'bayesian') throw new Error('expected a Bayesian outcome');
    expect(r.variant_results[0].chance_to_win, JSON.stringify(r.variant_results[0])).toBeCloseTo(module.chance_to_win!, 9);

    // Purchases as the start: only purchasers count, and a pageview before the purchase never completes it.
    const reversed = await query(id, { ...metric, uuid: 'm-retention-2', start_event: metric.completion_event, completion_event: metric.start_event });
    for (const [arm, got] of [['control', reversed.baseline], ['test', reversed.variant_results[0]]] as const) {
      expect(got).toMatchObject({ number_of_samples: plans.filter((p) => p.variant === arm && p.purchases.length > 0).length, sum: 0 });
    }
  });

  it('refuses a retention metric without its window, or whose window ends before it starts (400)', async () => {
    for (const bad of [{ retention_window_unit: undefined }, { retention_window_start: 3, retention_window_end: 1 }]) {
      const metric = retentionMetric(bad);
      const res = await s.api(`/api/projects/${s.credentials.project_id}/query/`, { method: 'POST', body: JSON.stringify({ query: { kind: 'ExperimentQuery', metric, experiment_id: id } }) });
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(body)).toMatch(/retention_window/);
    }
  });

  it('frequentist with sequential testing: the interval narrows as more days of data arrive', async () => {
    const patch = await send(s, 'PATCH', experimentsPath(s, `${id}/`), {
      stats_config: { method: 'frequentist', frequentist: { sequential_testing_enabled: true }, cuped: { enabled: false } },
    });
    expect(patch.status).toBe(200);
    const widths: number[] = [];
    for (const days of [6, 8, 10]) {
      const ended = await send(s, 'PATCH', experimentsPath(s, `${id}/`), { end_date: new Date(start + days * DAY).toISOString() });
      expect(ended.status).toBe(200);
      const r = await query(id, meanMetric);
      const v = r.variant_results[0];
      expect(v.method).toBe('frequentist');
      expect(r.baseline.validation_failures).toEqual([]);
      widths.push(v.confidence_interval[1] - v.confidence_interval[0]);
    }
    expect(widths[1]).toBeLessThan(widths[0]!);
    expect(widths[2]).toBeLessThan(widths[1]!);
  });

  it('refuses other query kinds and unknown experiments with 4xx', async () => {
    const other = await s.api(`/api/projects/${s.credentials.project_id}/query/`, { method: 'POST', body: JSON.stringify({ query: { kind: 'HogQLQuery', query: 'select 1' } }) });
    expect(other.status).toBe(400);
    const missing = await s.api(`/api/projects/${s.credentials.project_id}/query/`, {
      method: 'POST',
      body: JSON.stringify({ query: { kind: 'ExperimentQuery', metric: meanMetric, experiment_id: 999999 } }),
    });
    expect(missing.status).toBe(404);
  });
});
