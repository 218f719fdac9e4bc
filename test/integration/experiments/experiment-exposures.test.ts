import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chiSquareGoodnessOfFit } from '../../../src/stats';
import { json, type Json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { createExperiment, experimentsPath, ingestEvents, send, type TimedEvent } from './helpers';

// PostHog's ExperimentExposureQuery through the query endpoint: exposed entities per variant and
// day (cumulative), counted on the day of their first exposure, `$multiple` for those seen in two
// variants under `exclude`, the totals and the sample-ratio check. Every expected number is
// computed here from the events sent.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const DAY = 86_400_000;
const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
const startDay = today - 5 * DAY;
const start = startDay + 6 * 3_600_000;
const flagKey = 'exposure-days';
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Plan {
  id: string;
  sightings: { variant: string; at: number }[];
}
// 150 users, one exposure each, spread over the first five days (some twice on the same variant),
// and 3 users seen first in control and two days later in test.
const plans: Plan[] = [
  ...Array.from({ length: 150 }, (_, i) => {
    const at = start + (i % 5) * DAY + 3_600_000;
    const variant = i % 3 === 0 ? 'test' : 'control';
    return { id: `exp-user-${i}`, sightings: i % 7 === 0 ? [{ variant, at }, { variant, at: at + DAY }] : [{ variant, at }] };
  }),
  ...Array.from({ length: 3 }, (_, i) => ({
    id: `exp-mixed-${i}`,
    sightings: [
      { variant: 'control', at: start + DAY + 7_200_000 },
      { variant: 'test', at: start + 3 * DAY },
    ],
  })),
];

/** Per variant, the cumulative count per day from the start day to today, as this test expects it. */
function expected(handling: 'exclude' | 'first_seen', until = today) {
  const days: string[] = [];
  for (let d = startDay; d <= until; d += DAY) days.push(dayOf(d));
  const daily = new Map<string, number[]>();
  for (const p of plans) {
    const variants = new Set(p.sightings.map((x) => x.variant));
    const first = p.sightings.reduce((a, b) => (b.at < a.at ? b : a));
    if (first.at > until + DAY - 1) continue;
    const variant = variants.size > 1 && handling === 'exclude' ? '$multiple' : first.variant;
    if (!daily.has(variant)) daily.set(variant, new Array(days.length).fill(0));
    daily.get(variant)![days.indexOf(dayOf(first.at))] += 1;
  }
  const series = ['control', 'test', '$multiple']
    .filter((v) => daily.has(v))
    .map((variant) => {
      let running = 0;
      return { variant, days, exposure_counts: daily.get(variant)!.map((c) => (running += c)) };
    });
  return { series, totals: Object.fromEntries(series.map((x) => [x.variant, x.exposure_counts.at(-1)!])) };
}

async function exposureQuery(body: Record<string, unknown>, path: 'projects' | 'environments' = 'projects'): Promise<{ status: number; body: Json }> {
  const res = await s.api(`/api/${path}/${s.credentials.project_id}/query/`, {
    method: 'POST',
    body: JSON.stringify({ query: { kind: 'ExperimentExposureQuery', ...body } }),
  });
  return { status: res.status, body: await json(res) };
}

describe('POST /api/projects/:id/query/ with an ExperimentExposureQuery', () => {
  let id: number;

  beforeAll(async () => {
    const e = await createExperiment(s, { name: 'Exposures', feature_flag_key: flagKey, start_date: new Date(start).toISOString() });
    id = e.id as number;
    const events: TimedEvent[] = [];
    for (const p of plans) {
      for (const x of p.sightings) {
        events.push({
          event: '$feature_flag_called',
          distinct_id: p.id,
          properties: { $feature_flag: flagKey, $feature_flag_response: x.variant },
          timestamp: new Date(x.at).toISOString(),
        });
      }
    }
    // Noise: another flag's calls and an exposure before the start count for nobody.
    events.push({ event: '$feature_flag_called', distinct_id: 'other', properties: { $feature_flag: 'other', $feature_flag_response: 'test' }, timestamp: new Date(start + DAY).toISOString() });
    events.push({ event: '$feature_flag_called', distinct_id: 'early', properties: { $feature_flag: flagKey, $feature_flag_response: 'test' }, timestamp: new Date(start - DAY).toISOString() });
    await ingestEvents(s, events);
  }, 120_000);

  it('gives each variant its cumulative exposures per day, `$multiple` apart, with the totals and the sample-ratio check', async () => {
    const { status, body } = await exposureQuery({ experiment_id: id });
    expect(status, JSON.stringify(body)).toBe(200);
    const want = expected('exclude');
    expect(body.kind).toBe('ExperimentExposureQuery');
    expect(body.timeseries).toEqual(want.series);
    expect(body.total_exposures).toEqual(want.totals);
    expect(want.totals.$multiple).toBe(3);
    expect(body.date_range).toMatchObject({ date_from: new Date(start).toISOString(), date_to: null });
    // 150 single-variant users ≥ 100: the check runs over control and test only, at 50/50.
    const observed = [want.totals.control, want.totals.test];
    const total = observed[0] + observed[1];
    expect(body.sample_ratio_mismatch.expected).toEqual({ control: total / 2, test: total / 2 });
    expect(body.sample_ratio_mismatch.p_value).toBeCloseTo(chiSquareGoodnessOfFit(observed, [50, 50]).p_value, 12);
    expect(body.sample_ratio_mismatch.p_value).toBeLessThan(0.001);
  });

  it('under first_seen, a user seen in two variants counts for the first; an end date narrows the days', async () => {
    const patched = await send(s, 'PATCH', experimentsPath(s, `${id}/`), { exposure_criteria: { multiple_variant_handling: 'first_seen' } });
    expect(patched.status).toBe(200);
    const { body } = await exposureQuery({ experiment_id: id }, 'environments');
    const want = expected('first_seen');
    expect(body.timeseries).toEqual(want.series);
    expect(body.total_exposures).not.toHaveProperty('$multiple');

    const end = startDay + 2 * DAY;
    const narrowed = await exposureQuery({ experiment_id: id, end_date: new Date(end + DAY - 1).toISOString() });
    const wantNarrow = expected('first_seen', end);
    expect(narrowed.body.timeseries).toEqual(wantNarrow.series);
    expect(narrowed.body.timeseries[0].days).toHaveLength(3);
    // Under 100 exposures: no verdict, as PostHog.
    expect(wantNarrow.totals.control + wantNarrow.totals.test).toBeLessThan(100);
    expect(narrowed.body.sample_ratio_mismatch).toBeNull();
  });

  it('a draft answers empty; bad dates, unknown experiments and other kinds are 4xx', async () => {
    const draft = await createExperiment(s, { name: 'Draft', feature_flag_key: 'exposure-draft' });
    const empty = await exposureQuery({ experiment_id: draft.id });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ timeseries: [], total_exposures: {}, sample_ratio_mismatch: null });
    expect((await exposureQuery({ experiment_id: id, end_date: 'yesterday-ish' })).status).toBe(400);
    expect((await exposureQuery({ experiment_id: id, end_date: new Date(start - 2 * DAY).toISOString() })).status).toBe(400);
    expect((await exposureQuery({ experiment_id: id, start_date: '1900-01-01T00:00:00Z' })).status).toBe(400);
    expect((await exposureQuery({ experiment_id: 999999 })).status).toBe(404);
    const other = await s.api(`/api/projects/${s.credentials.project_id}/query/`, { method: 'POST', body: JSON.stringify({ query: { kind: 'TrendsQuery' } }) });
    const otherBody = await json(other);
    expect(other.status).toBe(400);
    expect(otherBody.detail).toMatch(/ExperimentQuery and ExperimentExposureQuery/);
  });
});

describe('exposure criteria with a custom exposure event and property filters', () => {
  const customFlag = 'exposure-custom';
  // 60 users view the checkout or the cart page (the variant in `$feature/<key>`); every fifth
  // views the cart first and the checkout two days later. Only checkout views expose.
  const users = Array.from({ length: 60 }, (_, i) => ({
    id: `custom-user-${i}`,
    variant: i % 2 === 0 ? 'control' : 'test',
    views: i % 5 === 0 ? [{ page: '/cart', at: start + DAY }, { page: '/checkout', at: start + 3 * DAY }] : [{ page: i % 3 === 0 ? '/cart' : '/checkout', at: start + (i % 4) * DAY }],
  }));

  it('counts only the exposure events the filters hold for, each entity on the day of its first such event', async () => {
    const e = await createExperiment(s, {
      name: 'Custom exposure',
      feature_flag_key: customFlag,
      start_date: new Date(start).toISOString(),
      exposure_criteria: { exposure_config: { kind: 'ExperimentEventExposureConfig', event: 'viewed_checkout', properties: [{ key: 'page', value: '/checkout', operator: 'exact', type: 'event' }] } },
    });
    await ingestEvents(
      s,
      users.flatMap((u) => u.views.map((v) => ({ event: 'viewed_checkout', distinct_id: u.id, properties: { page: v.page, [`$feature/${customFlag}`]: u.variant }, timestamp: new Date(v.at).toISOString() }))),
    );
    const { status, body } = await exposureQuery({ experiment_id: e.id });
    expect(status, JSON.stringify(body)).toBe(200);
    // Expected here from the plan: per variant, the day of each user's first checkout view.
    const firstCheckout = (u: (typeof users)[number]) => u.views.filter((v) => v.page === '/checkout').map((v) => v.at).sort((a, b) => a - b)[0];
    const want: Record<string, Record<string, number>> = {};
    for (const u of users) {
      const at = firstCheckout(u);
      if (at === undefined) continue;
      want[u.variant] ??= {};
      want[u.variant][dayOf(at)] = (want[u.variant][dayOf(at)] ?? 0) + 1;
    }
    const totals = Object.fromEntries(Object.entries(want).map(([variant, days]) => [variant, Object.values(days).reduce((a, b) => a + b, 0)]));
    expect(body.total_exposures).toEqual(totals);
    // Fewer than every user who sent the event: the cart-only users are not exposed.
    expect(totals.control + totals.test).toBeLessThan(users.length);
    for (const series of body.timeseries as { variant: string; days: string[]; exposure_counts: number[] }[]) {
      const daily = series.exposure_counts.map((c, i) => c - (series.exposure_counts[i - 1] ?? 0));
      const got = Object.fromEntries(series.days.map((d, i) => [d, daily[i]]).filter(([, n]) => n !== 0));
      expect(got).toEqual(want[series.variant]);
    }
  });
});
