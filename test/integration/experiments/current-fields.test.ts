import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { createExperiment, expectError, experimentsPath, send } from './helpers';

// PostHog's current experiment fields (compat §15.1) over real HTTP: defaults, uuids and
// fingerprints, ordering, PostHog's refusals, recording as events, and the OpenAPI document.
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const mean = { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' } };
const funnel = { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: 'checkout' }], conversion_window: 14, conversion_window_unit: 'day' };
const ratio = {
  kind: 'ExperimentMetric',
  metric_type: 'ratio',
  numerator: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' },
  denominator: { kind: 'EventsNode', event: '$pageview' },
};

describe('the current fields', () => {
  it('defaults on create: no metrics, Bayesian statistics, test accounts filtered, no conclusion', async () => {
    const e = await createExperiment(s, { name: 'Defaults', feature_flag_key: 'cf-defaults' });
    expect(e).toMatchObject({
      metrics: [],
      metrics_secondary: [],
      saved_metrics: [],
      primary_metrics_ordered_uuids: [],
      secondary_metrics_ordered_uuids: [],
      stats_config: { method: 'bayesian' },
      exposure_criteria: { filterTestAccounts: true },
      conclusion: null,
      conclusion_comment: null,
    });
  });

  it('adds uuid and fingerprint to each metric, orders them, and reads them back after a PATCH', async () => {
    const e = await createExperiment(s, {
      name: 'Metrics',
      feature_flag_key: 'cf-metrics',
      metrics: [mean, { ...funnel, uuid: 'my-funnel' }],
      metrics_secondary: [ratio],
      stats_config: { method: 'frequentist', frequentist: { sequential_testing_enabled: true }, cuped: { enabled: true, lookback_days: 7 } },
      exposure_criteria: { filterTestAccounts: false, exposure_config: { kind: 'ExperimentEventExposureConfig', event: 'seen_checkout', properties: [] } },
    });
    const metrics = e.metrics as Record<string, unknown>[];
    expect(metrics).toHaveLength(2);
    expect(metrics[0]?.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(metrics[1]?.uuid).toBe('my-funnel');
    expect(metrics[0]?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(e.primary_metrics_ordered_uuids).toEqual([metrics[0]?.uuid, 'my-funnel']);
    expect((e.secondary_metrics_ordered_uuids as string[]).length).toBe(1);

    const reordered = await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { primary_metrics_ordered_uuids: ['my-funnel', metrics[0]?.uuid], conclusion: 'won', conclusion_comment: 'Ship it' });
    const body = await json(reordered);
    expect(reordered.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ primary_metrics_ordered_uuids: ['my-funnel', metrics[0]?.uuid], conclusion: 'won', conclusion_comment: 'Ship it' });

    const read = await json(await send(s, 'GET', experimentsPath(s, `${e.id}/`)));
    expect(read).toMatchObject({
      primary_metrics_ordered_uuids: ['my-funnel', metrics[0]?.uuid],
      conclusion: 'won',
      stats_config: { method: 'frequentist', cuped: { enabled: true, lookback_days: 7 } },
      exposure_criteria: { filterTestAccounts: false },
    });

    // Recorded as events like every other change: the stream holds the metrics and the PATCH.
    const events = await s.runtime.log.readStream(`experiment-${e.id as number}`);
    const created = events.find((ev) => ev.type === 'ExperimentCreated')?.data as Record<string, unknown>;
    expect((created.metrics as unknown[]).length).toBe(2);
    const updated = events.find((ev) => ev.type === 'ExperimentUpdated')?.data as Record<string, unknown>;
    expect(updated).toMatchObject({ conclusion: 'won', conclusionComment: 'Ship it' });
  });

  it('appends a new metric to the display order when the PATCH gives no order', async () => {
    const e = await createExperiment(s, { name: 'Grow', feature_flag_key: 'cf-grow', metrics: [{ ...mean, uuid: 'a' }] });
    const res = await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { metrics: [{ ...mean, uuid: 'a' }, { ...ratio, uuid: 'b' }] });
    expect((await json(res)).primary_metrics_ordered_uuids).toEqual(['a', 'b']);
  });
});

describe("PostHog's refusals (400, nothing recorded)", () => {
  const refused = async (body: Record<string, unknown>, detail: string | RegExp, attr?: string | null) =>
    expectError(await send(s, 'POST', experimentsPath(s), { name: 'Refused', feature_flag_key: `cf-refused-${Math.random().toString(36).slice(2)}`, ...body }), 400, detail, attr);

  it('legacy metric kinds, other kinds, malformed metrics and empty funnels', async () => {
    await refused(
      { metrics: [{ kind: 'ExperimentTrendsQuery' }] },
      "Invalid metric at index 0: legacy metric kind 'ExperimentTrendsQuery' is no longer supported for new experiments. Use 'ExperimentMetric' instead.",
      'metrics',
    );
    await refused({ metrics: [{ kind: 'Nope' }] }, "Invalid metric at index 0: metric kind must be 'ExperimentMetric'", 'metrics');
    await refused({ metrics: 'x' }, 'Metrics must be a list', 'metrics');
    await refused({ metrics_secondary: [{ kind: 'ExperimentMetric', metric_type: 'mean' }] }, /^Invalid metric at index 0: /, 'metrics_secondary');
    await refused({ metrics: [{ ...funnel, series: [] }] }, /funnel metrics require at least one step/, 'metrics');
  });

  it('duplicate uuids, an incomplete order, a bad method, baseline, exposure criteria, conclusion and saved metrics', async () => {
    await refused({ metrics: [{ ...mean, uuid: 'x' }], metrics_secondary: [{ ...ratio, uuid: 'x' }] }, "Duplicate metric UUID: 'x'. Each metric must have a unique UUID.");
    await refused({ metrics: [{ ...mean, uuid: 'x' }], primary_metrics_ordered_uuids: ['y'] }, /missing: x/);
    await refused({ stats_config: { method: 'magic' } }, "Invalid stats method: 'magic'. Must be one of: bayesian, frequentist", 'stats_config');
    await refused({ stats_config: { baseline_variant_key: 'nope' } }, "Invalid baseline_variant_key: 'nope'. Must be one of: control, test");
    await refused({ exposure_criteria: { filterTestAccounts: 'yes' } }, 'exposure_criteria.filterTestAccounts must be a boolean, got str: "yes".', 'exposure_criteria');
    await refused({ exposure_criteria: { exposure_config: { kind: 'Other' } } }, /^exposure_criteria.exposure_config.kind must be one of/, 'exposure_criteria');
    await refused({ conclusion: 'meh' }, '"meh" is not a valid choice.', 'conclusion');
    await refused({ saved_metrics_ids: [{ id: 7, metadata: { type: 'primary' } }] }, 'Saved metric 7 does not exist or does not belong to this project', 'saved_metrics_ids');
    const list = await json(await send(s, 'GET', experimentsPath(s)));
    expect((list.results as { name: string }[]).filter((r) => r.name === 'Refused')).toHaveLength(0);
  });
});

describe('OpenAPI', () => {
  it('documents the current fields on the Experiment and its create body', async () => {
    const doc = (await (await fetch(`${s.url}/api/schema/?format=json`)).json()) as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    const experiment = doc.components.schemas.Experiment?.properties ?? {};
    for (const field of ['metrics', 'metrics_secondary', 'stats_config', 'exposure_criteria', 'conclusion', 'primary_metrics_ordered_uuids']) {
      expect(experiment, field).toHaveProperty(field);
    }
  });
});
