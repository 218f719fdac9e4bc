import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { createExperiment, expectError, experimentsPath, send } from './helpers';

// Every experiment endpoint of spec §4.1 over real HTTP: status codes, bodies, PATCH rules, delete.
let s: TestServer;
const flagPath = (id: number) => `/api/projects/${s.credentials.project_id}/feature_flags/${id}/`;

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('POST /experiments/', () => {
  it('creates a draft experiment and its inactive control/test flag (201, full shape)', async () => {
    const e = await createExperiment(s, { name: 'Checkout', description: 'New button', feature_flag_key: 'checkout-btn' });
    expect(Object.keys(e).sort()).toEqual(
      [
        'archived', 'created_at', 'created_by', 'description', 'end_date', 'exposure_cohort', 'feature_flag', 'feature_flag_key',
        'filters', 'id', 'name', 'parameters', 'secondary_metrics', 'start_date', 'status', 'updated_at',
        // PostHog's current fields (compat §15.1)
        'metrics', 'metrics_secondary', 'saved_metrics', 'primary_metrics_ordered_uuids', 'secondary_metrics_ordered_uuids',
        'stats_config', 'exposure_criteria', 'conclusion', 'conclusion_comment',
      ].sort(),
    );
    expect(e).toMatchObject({
      name: 'Checkout',
      description: 'New button',
      start_date: null,
      end_date: null,
      feature_flag_key: 'checkout-btn',
      exposure_cohort: null,
      parameters: null,
      secondary_metrics: [],
      filters: {},
      archived: false,
      status: 'draft',
    });
    expect(Number.isInteger(e.id)).toBe(true);
    expect(e.created_by).toMatchObject({ id: expect.any(Number), email: expect.any(String), uuid: expect.any(String) });
    expect(e.feature_flag).toEqual({
      id: expect.any(Number),
      team_id: s.credentials.project_id,
      name: 'Feature Flag for Experiment Checkout',
      key: 'checkout-btn',
      filters: expect.objectContaining({
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'control', name: 'Control Group', rollout_percentage: 50 },
            { key: 'test', name: 'Test Variant', rollout_percentage: 50 },
          ],
        },
        aggregation_group_type_index: null,
      }),
      deleted: false,
      active: false,
      ensure_experience_continuity: false,
    });
    // The flag is a real flag of the project, linked back to the experiment.
    const flag = await json(await s.api(flagPath(e.feature_flag.id)));
    expect(flag).toMatchObject({ key: 'checkout-btn', active: false, experiment_set: [e.id] });
  });

  it('with a start date the flag is active and the experiment running; custom variants are used', async () => {
    const variants = [
      { key: 'control', rollout_percentage: 34 },
      { key: 'blue', rollout_percentage: 33 },
      { key: 'green', name: 'Green', rollout_percentage: 33 },
    ];
    const e = await createExperiment(s, {
      name: 'Colours',
      feature_flag_key: 'colours',
      start_date: '2024-05-01T10:00:00Z',
      parameters: { feature_flag_variants: variants },
      filters: { insight: 'TRENDS', events: [{ id: 'click' }] },
    });
    expect(e).toMatchObject({ status: 'running', start_date: '2024-05-01T10:00:00.000Z', feature_flag: { active: true } });
    expect(e.feature_flag.filters.multivariate.variants).toEqual(variants);
  });

  it('gives consecutive integer ids', async () => {
    const a = await createExperiment(s, { name: 'A', feature_flag_key: 'ids-a' });
    const b = await createExperiment(s, { name: 'B', feature_flag_key: 'ids-b' });
    expect(b.id).toBe(a.id + 1);
  });

  it.each([
    [{ feature_flag_key: 'x1' }, 'This field is required.', 'name'],
    [{ name: '  ', feature_flag_key: 'x1' }, 'This field may not be blank.', 'name'],
    [{ name: 'n' }, 'This field is required.', 'feature_flag_key'],
    [{ name: 'n', feature_flag_key: 'bad key!' }, 'Only letters, numbers, hyphens ("-") & underscores ("_") are allowed.', 'feature_flag_key'],
    [{ name: 'n', feature_flag_key: 'checkout-btn' }, 'There is already a feature flag with this key.', 'feature_flag_key'],
    [
      { name: 'n', feature_flag_key: 'x2', parameters: { feature_flag_variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] } },
      'Feature flag variants must contain a control variant',
      'parameters',
    ],
    [
      { name: 'n', feature_flag_key: 'x3', parameters: { feature_flag_variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 40 }] } },
      'Invalid variant definitions: Variant rollout percentages must sum to 100.',
      'parameters',
    ],
    [
      { name: 'n', feature_flag_key: 'x4', parameters: { feature_flag_variants: Array.from({ length: 21 }, (_, i) => ({ key: i ? `v${i}` : 'control', rollout_percentage: i ? 5 : 0 })) } },
      'Feature flag variants must be less than 21',
      'parameters',
    ],
    [
      { name: 'n', feature_flag_key: 'x5', parameters: { feature_flag_variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'control', rollout_percentage: 50 }] } },
      'Invalid variant definitions: Variant keys must be unique.',
      'parameters',
    ],
    [{ name: 'n', feature_flag_key: 'x6', parameters: { aggregation_group_type_index: 3 } }, /Invalid group type index 3/, 'filters'],
    [{ name: 'n', feature_flag_key: 'x7', start_date: 'yesterday' }, /Datetime has wrong format/, 'start_date'],
    [{ name: 'n', feature_flag_key: 'x8', filters: { properties: [{ key: 'a', value: 1 }] } }, 'Experiments do not support global filter properties', 'filters'],
    [{ name: 'n', feature_flag_key: 'x9', parameters: 'no' }, 'Expected a JSON object.', 'parameters'],
    [{ name: 'n', feature_flag_key: 'x10', archived: 'yes' }, 'Must be a valid boolean.', 'archived'],
  ])('400 for %j', async (body, detail, attr) => {
    const err = await expectError(await send(s, 'POST', experimentsPath(s), body), 400, detail, attr);
    expect(err.type).toBe('validation_error');
  });

  it('accepts 20 variants (the maximum)', async () => {
    const variants = Array.from({ length: 20 }, (_, i) => ({ key: i ? `v${i}` : 'control', rollout_percentage: 5 }));
    const e = await createExperiment(s, { name: 'Twenty', feature_flag_key: 'twenty', parameters: { feature_flag_variants: variants } });
    expect(e.feature_flag.filters.multivariate.variants).toHaveLength(20);
  });

  it('a refused create leaves no experiment and no flag behind', async () => {
    const before = (await json(await s.api(experimentsPath(s)))).count;
    await send(s, 'POST', experimentsPath(s), { name: 'n', feature_flag_key: 'left-over', parameters: { feature_flag_variants: [{ key: 'x', rollout_percentage: 100 }] } });
    expect((await json(await s.api(experimentsPath(s)))).count).toBe(before);
    const flags = await json(await s.api(`/api/projects/${s.credentials.project_id}/feature_flags/?search=left-over`));
    expect(flags.count).toBe(0);
  });
});

describe('GET /experiments/ and /experiments/:id/', () => {
  it('lists newest first in the offset envelope, hiding archived ones unless asked', async () => {
    const archived = await createExperiment(s, { name: 'Old', feature_flag_key: 'old-one', archived: true });
    const all = await json(await s.api(experimentsPath(s)));
    expect(all.results.map((e: { id: number }) => e.id)).toEqual([...all.results.map((e: { id: number }) => e.id)].sort((a, b) => b - a));
    expect(all.results.some((e: { id: number }) => e.id === archived.id)).toBe(false);
    const onlyArchived = await json(await s.api(`${experimentsPath(s)}?archived=true`));
    expect(onlyArchived.results.map((e: { id: number }) => e.id)).toEqual([archived.id]);

    const page = await json(await s.api(`${experimentsPath(s)}?limit=2&offset=1`));
    expect(page.count).toBe(all.count);
    expect(page.results.map((e: { id: number }) => e.id)).toEqual(all.results.slice(1, 3).map((e: { id: number }) => e.id));
    expect(page.next).toContain('offset=3');
    expect(page.previous).toContain('offset=0');
    await expectError(await s.api(`${experimentsPath(s)}?limit=abc`), 400, undefined, 'limit');
  });

  it('retrieves one; unknown or malformed ids and other projects are 404', async () => {
    const e = await createExperiment(s, { name: 'One', feature_flag_key: 'get-one' });
    const got = await json(await s.api(experimentsPath(s, `${e.id}/`)));
    expect(got).toEqual(e);
    await expectError(await s.api(experimentsPath(s, '999999/')), 404, 'Not found.');
    await expectError(await s.api(experimentsPath(s, 'abc/')), 404);
    const other = await s.runtime.access.createProject(s.credentials.organization_id, 'Other', { type: 'system' });
    await expectError(await s.api(`/api/projects/${other.id}/experiments/${e.id}/`), 404);
  });
});

describe('PATCH /experiments/:id/', () => {
  it('updates writable fields; start_date on a draft activates the flag; end_date completes it', async () => {
    const e = await createExperiment(s, { name: 'Patchy', feature_flag_key: 'patchy' });
    const renamed = await json(await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { name: 'Patched', description: 'd', archived: false }));
    expect(renamed).toMatchObject({ name: 'Patched', description: 'd', status: 'draft', feature_flag: { active: false } });
    expect(renamed.updated_at >= e.updated_at).toBe(true);

    const started = await json(await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { start_date: '2024-06-01T00:00:00Z' }));
    expect(started).toMatchObject({ status: 'running', feature_flag: { active: true } });
    expect((await json(await s.api(flagPath(e.feature_flag.id)))).active).toBe(true);

    const ended = await json(await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { end_date: '2024-07-01T00:00:00Z', secondary_metrics: [{ name: 'm', filters: {} }] }));
    expect(ended).toMatchObject({ status: 'complete', end_date: '2024-07-01T00:00:00.000Z', secondary_metrics: [{ name: 'm', filters: {} }] });
  });

  it('changes the flag variants while a draft; freezes them after launch', async () => {
    const e = await createExperiment(s, { name: 'Variants', feature_flag_key: 'variants-exp' });
    const three = [
      { key: 'control', rollout_percentage: 40 },
      { key: 'a', rollout_percentage: 30 },
      { key: 'b', rollout_percentage: 30 },
    ];
    const draft = await json(await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { parameters: { feature_flag_variants: three } }));
    expect(draft.feature_flag.filters.multivariate.variants).toEqual(three);
    await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { start_date: '2024-06-01T00:00:00Z' });

    const two = [{ key: 'control', rollout_percentage: 50 }, { key: 'a', rollout_percentage: 50 }];
    await expectError(await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { parameters: { feature_flag_variants: two } }), 400, "Can't update feature_flag_variants on Experiment");
    const renamedKeys = three.map((v) => (v.key === 'b' ? { ...v, key: 'c' } : v));
    await expectError(await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { parameters: { feature_flag_variants: renamedKeys } }), 400, "Can't update feature_flag_variants on Experiment");
    // Same keys (new percentages) and other parameters are fine after launch; the flag keeps its split.
    const ok = await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { parameters: { feature_flag_variants: three, minimum_detectable_effect: 5 } });
    expect(ok.status).toBe(200);
    expect((await json(ok)).feature_flag.filters.multivariate.variants).toEqual(three);
  });

  it('refuses other keys with PostHog\'s message; the unchanged flag key and read-only fields are accepted', async () => {
    const e = await createExperiment(s, { name: 'Keys', feature_flag_key: 'keys-exp' });
    await expectError(await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { feature_flag_key: 'other' }), 400, "Can't update keys: feature_flag_key on Experiment");
    await expectError(await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { zeta: 1, alpha: 2, name: 'x' }), 400, "Can't update keys: alpha, zeta on Experiment");
    const roundTrip = await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { ...e, name: 'Round trip' });
    expect(roundTrip.status).toBe(200);
    expect((await json(roundTrip)).name).toBe('Round trip');
    await expectError(await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { name: '' }), 400, 'This field may not be blank.', 'name');
    await expectError(await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { filters: { properties: [{ key: 'a' }] } }), 400, 'Experiments do not support global filter properties');
    await expectError(await send(s, 'PATCH', experimentsPath(s, '999999/'), { name: 'x' }), 404);
  });
});

describe('DELETE /experiments/:id/', () => {
  it('answers 204 with no body, hides the experiment and soft-deletes its flag (key stays taken)', async () => {
    const e = await createExperiment(s, { name: 'Doomed', feature_flag_key: 'doomed' });
    const res = await send(s, 'DELETE', experimentsPath(s, `${e.id}/`));
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    await expectError(await s.api(experimentsPath(s, `${e.id}/`)), 404);
    await expectError(await s.api(flagPath(e.feature_flag.id)), 404);
    await expectError(await send(s, 'DELETE', experimentsPath(s, `${e.id}/`)), 404);
    await expectError(await send(s, 'POST', experimentsPath(s), { name: 'Again', feature_flag_key: 'doomed' }), 400, 'There is already a feature flag with this key.');
  });
});
