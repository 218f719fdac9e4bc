import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type Json } from '../../support/json';
import { posthogClient, settle } from '../../support/posthog';
import { startTestServer, type TestServer } from '../../support/server';
import { createExperiment, expectError, send } from './helpers';

// Actions as ExperimentQuery sources (compat §15.1's ActionsNode), end to end: posthog-node sends the
// exposures and the events; the endpoint's sums over an action's matches must equal the ones this
// test computes from what it sent, with the action's steps applied here independently.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const DAY = 86_400_000;
const USERS = 120;
const start = Date.now() - 6 * DAY;
const flagKey = 'actions-query';
const PRICING = 'https://shop.example/pricing/annual';
const BLOG = 'https://shop.example/blog/news';
/** Not `/pricing`: PostHog's URL `contains` is case-sensitive (LIKE). */
const PRICING_UPPER = 'https://shop.example/Pricing';

interface Plan {
  id: string;
  variant: 'control' | 'test';
  exposedAt: number;
  /** The `$current_url` of each pageview after the exposure, one minute apart. */
  pageviews: string[];
  signedUp: boolean;
  purchase: { amount: number; plan: 'pro' | 'basic' } | null;
}
const plans: Plan[] = Array.from({ length: USERS }, (_, i) => {
  const variant = i % 2 === 0 ? 'control' : 'test';
  return {
    id: `action-user-${i}`,
    variant,
    exposedAt: start + DAY + Math.floor((i / USERS) * 3 * DAY),
    pageviews: Array.from({ length: 1 + (i % 3) }, (_, v) => ((i + v) % 3 === 0 ? PRICING : i % 6 === 1 ? PRICING_UPPER : BLOG)),
    signedUp: i % 5 === 0,
    purchase: i % 4 === 0 ? null : { amount: 10 + (i % 7) + (variant === 'test' ? 2 : 0), plan: i % 3 === 0 ? 'pro' : 'basic' },
  };
});

async function sendPlans() {
  const client = posthogClient(s);
  for (const p of plans) {
    // A pricing pageview before the exposure: never counted.
    client.capture({ distinctId: p.id, event: '$pageview', properties: { $current_url: PRICING }, timestamp: new Date(p.exposedAt - DAY) });
    client.capture({ distinctId: p.id, event: '$feature_flag_called', properties: { $feature_flag: flagKey, $feature_flag_response: p.variant }, timestamp: new Date(p.exposedAt) });
    p.pageviews.forEach((url, v) => client.capture({ distinctId: p.id, event: '$pageview', properties: { $current_url: url }, timestamp: new Date(p.exposedAt + (v + 1) * 60_000) }));
    if (p.signedUp) client.capture({ distinctId: p.id, event: 'signed_up', timestamp: new Date(p.exposedAt + 5 * 60_000) });
    if (p.purchase) client.capture({ distinctId: p.id, event: 'purchase', properties: { ...p.purchase }, timestamp: new Date(p.exposedAt + 10 * 60_000) });
  }
  await client.shutdown();
  await settle(s);
}

/** "Interested": a pricing pageview (URL contains /pricing) or a signup, counted here from the plan. */
const interested = (p: Plan) => p.pageviews.filter((url) => url.includes('/pricing')).length + (p.signedUp ? 1 : 0);
/** "Pro purchase": a purchase whose plan is pro; its amount. */
const proAmount = (p: Plan) => (p.purchase?.plan === 'pro' ? p.purchase.amount : 0);

function sums(value: (p: Plan) => number) {
  const out = { control: { n: 0, sum: 0, ss: 0 }, test: { n: 0, sum: 0, ss: 0 } };
  for (const p of plans) {
    const arm = out[p.variant];
    arm.n += 1;
    arm.sum += value(p);
    arm.ss += value(p) ** 2;
  }
  return out;
}

const actionsPath = (projectId: number | string = s.credentials.project_id) => `/api/projects/${projectId}/actions/`;
async function action(body: Record<string, unknown>, projectId?: number): Promise<number> {
  const res = await send(s, 'POST', actionsPath(projectId), body);
  const out = await json(res);
  expect(res.status, JSON.stringify(out)).toBe(201);
  return out.id as number;
}
const queryRes = (id: number, metric: unknown) =>
  s.api(`/api/projects/${s.credentials.project_id}/query/`, { method: 'POST', body: JSON.stringify({ query: { kind: 'ExperimentQuery', metric, experiment_id: id } }) });
async function query(id: number, metric: unknown): Promise<Json> {
  const res = await queryRes(id, metric);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}
const arms = (r: Json) => [['control', r.baseline], ['test', r.variant_results[0]]] as const;

describe('ExperimentQuery with ActionsNode sources', () => {
  let experimentId: number;
  let interestedId: number;
  let proId: number;

  beforeAll(async () => {
    interestedId = await action({ name: 'Interested', steps: [{ event: '$pageview', url: '/pricing' }, { event: 'signed_up' }] });
    proId = await action({ name: 'Pro purchase', steps: [{ event: 'purchase', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }] }] });
    const e = await createExperiment(s, { name: 'Actions', feature_flag_key: flagKey, start_date: new Date(start).toISOString() });
    experimentId = e.id as number;
    await sendPlans();
  }, 120_000);

  it('a mean metric counts the events its action matches: by event name, and by URL contains (case-sensitive)', async () => {
    const r = await query(experimentId, { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'ActionsNode', id: interestedId } });
    const want = sums(interested);
    expect(want.control.sum).toBeGreaterThan(0);
    expect(plans.some((p) => p.pageviews.includes(PRICING_UPPER))).toBe(true);
    for (const [arm, got] of arms(r)) expect(got).toMatchObject({ key: arm, number_of_samples: want[arm].n, sum: want[arm].sum, sum_squares: want[arm].ss });
  });

  it("a mean metric sums the math property over an action's matches with a property filter", async () => {
    const r = await query(experimentId, { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'ActionsNode', id: proId, math: 'sum', math_property: 'amount' } });
    const want = sums(proAmount);
    // Basic purchases exist and are left out.
    expect(plans.some((p) => p.purchase?.plan === 'basic')).toBe(true);
    for (const [arm, got] of arms(r)) {
      expect(got.number_of_samples).toBe(want[arm].n);
      expect(got.sum).toBeCloseTo(want[arm].sum, 6);
      expect(got.sum_squares).toBeCloseTo(want[arm].ss, 6);
    }
  });

  it('a funnel whose steps are actions: interested, then a pro purchase', async () => {
    const r = await query(experimentId, {
      kind: 'ExperimentMetric',
      metric_type: 'funnel',
      series: [{ kind: 'ActionsNode', id: interestedId }, { kind: 'ActionsNode', id: proId }],
    });
    for (const [arm, got] of arms(r)) {
      const mine = plans.filter((p) => p.variant === arm);
      // Every interested event (pageviews at +1..+3 min, signup at +5) comes before the purchase (+10).
      const reached = mine.filter((p) => interested(p) > 0).length;
      const converted = mine.filter((p) => interested(p) > 0 && proAmount(p) > 0).length;
      expect(converted).toBeGreaterThan(0);
      expect(got).toMatchObject({ key: arm, number_of_samples: mine.length, sum: converted, step_counts: [reached, converted] });
    }
  });

  it('an ActionsNode mixed with an EventsNode in a ratio', async () => {
    const r = await query(experimentId, {
      kind: 'ExperimentMetric',
      metric_type: 'ratio',
      numerator: { kind: 'ActionsNode', id: interestedId },
      denominator: { kind: 'EventsNode', event: '$pageview' },
    });
    for (const [arm, got] of arms(r)) {
      const mine = plans.filter((p) => p.variant === arm);
      expect(got.sum).toBe(mine.reduce((a, p) => a + interested(p), 0));
      expect(got.denominator_sum).toBe(mine.reduce((a, p) => a + p.pageviews.length, 0));
    }
  });

  it('refuses (400, naming it) an unknown, deleted, other-project or unsupported action, and a step it cannot read', async () => {
    const mean = (id: number) => ({ kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'ActionsNode', id } });
    await expectError(await queryRes(experimentId, mean(987654)), 400, 'Action 987654 does not exist.', 'query');

    const other = await s.runtime.access.createProject(s.credentials.organization_id, 'Actions of another', { type: 'system' });
    const foreign = await action({ name: 'Foreign', steps: [{ event: 'purchase' }] }, other.id);
    await expectError(await queryRes(experimentId, mean(foreign)), 400, `Action ${foreign} does not exist.`, 'query');

    const gone = await action({ name: 'Gone', steps: [{ event: 'purchase' }] });
    await send(s, 'PATCH', `${actionsPath()}${gone}/`, { deleted: true });
    await expectError(await queryRes(experimentId, mean(gone)), 400, `Action ${gone} does not exist.`, 'query');

    const anyEvent = await action({ name: 'Any event', steps: [{ event: 'purchase' }, { url: '/pricing' }] });
    await expectError(await queryRes(experimentId, mean(anyEvent)), 400, `Action ${anyEvent} step 2: a step without an event (matching any event) is not supported here.`, 'query');
    const clicks = await action({ name: 'Clicks', steps: [{ event: '$autocapture', text: 'Buy' }] });
    await expectError(await queryRes(experimentId, mean(clicks)), 400, `Action ${clicks} step 1: matching on 'text' (the elements chain) is not supported here.`, 'query');
    const persons = await action({ name: 'Persons', steps: [{ event: 'purchase', properties: [{ key: 'email', value: 'x', type: 'person' }] }] });
    await expectError(await queryRes(experimentId, mean(persons)), 400, /^Action \d+ step 1: a property filter of type 'person'/, 'query');
    const empty = await action({ name: 'Empty' });
    await expectError(await queryRes(experimentId, { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: 'purchase' }, { kind: 'ActionsNode', id: empty }] }), 400, `Action ${empty} has no steps (it would match every event), which is not supported here.`, 'query');
  });
});

describe('exposure criteria with an ActionsNode', () => {
  const exposureFlag = 'actions-exposure';
  const base = Date.now() - 3 * DAY;
  const CHECKOUT = 'https://shop.example/checkout';
  const HOME = 'https://shop.example/';
  /** Users with a checkout pageview are exposed by it; a home pageview (also carrying the flag) earlier is not an exposure. */
  const users = Array.from({ length: 60 }, (_, i) => ({
    id: `exposure-user-${i}`,
    variant: i % 2 === 0 ? 'control' : 'test',
    at: base + i * 60 * 60_000,
    checkout: i % 3 !== 0,
    home: i % 3 === 0 || i % 2 === 0,
    purchaseAfter: i % 4 !== 1,
  }));
  let experimentId: number;
  let checkoutId: number;

  beforeAll(async () => {
    checkoutId = await action({ name: 'Checkout view', steps: [{ event: '$pageview', url: '/checkout' }] });
    const e = await createExperiment(s, {
      name: 'Exposed by an action',
      feature_flag_key: exposureFlag,
      start_date: new Date(base - DAY).toISOString(),
      exposure_criteria: { exposure_config: { kind: 'ActionsNode', id: checkoutId } },
    });
    experimentId = e.id as number;
    const client = posthogClient(s);
    for (const u of users) {
      const flag = { [`$feature/${exposureFlag}`]: u.variant };
      if (u.home) client.capture({ distinctId: u.id, event: '$pageview', properties: { $current_url: HOME, ...flag }, timestamp: new Date(u.at - 60 * 60_000) });
      // A purchase between the home pageview and the checkout: after the exposure only if home were one.
      client.capture({ distinctId: u.id, event: 'purchase', properties: { amount: 5 }, timestamp: new Date(u.at - 30 * 60_000) });
      if (u.checkout) client.capture({ distinctId: u.id, event: '$pageview', properties: { $current_url: CHECKOUT, ...flag }, timestamp: new Date(u.at) });
      if (u.purchaseAfter) client.capture({ distinctId: u.id, event: 'purchase', properties: { amount: 5 }, timestamp: new Date(u.at + 10 * 60_000) });
    }
    await client.shutdown();
    await settle(s);
  }, 120_000);

  it('exposes each entity at its first event the action matches, carrying the variant in $feature/<key>', async () => {
    const r = await query(experimentId, { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: 'purchase' } });
    for (const [arm, got] of arms(r)) {
      const exposed = users.filter((u) => u.variant === arm && u.checkout);
      const sum = exposed.filter((u) => u.purchaseAfter).length;
      expect(got).toMatchObject({ key: arm, number_of_samples: exposed.length, sum, sum_squares: sum });
    }
  });

  it('an unknown action as the exposure is a 400 naming it', async () => {
    const e = await createExperiment(s, {
      name: 'Exposed by nothing',
      feature_flag_key: 'actions-exposure-none',
      start_date: new Date(base - DAY).toISOString(),
      exposure_criteria: { exposure_config: { kind: 'ActionsNode', id: 987655 } },
    });
    await expectError(await queryRes(e.id as number, { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: 'purchase' } }), 400, 'Exposure criteria: action 987655 does not exist.', 'query');
  });
});
