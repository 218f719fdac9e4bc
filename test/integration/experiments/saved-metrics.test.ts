import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type Json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { at, createExperiment, expectError, experimentsPath, ingestEvents, keyWith, send } from './helpers';

// Saved (shared) experiment metrics (compat §15.1): their own resource, linked to experiments with
// `saved_metrics_ids` and read back as `saved_metrics`, over real HTTP and SQLite.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const savedPath = (rest = '', projectId: number | string = s.credentials.project_id) => `/api/projects/${projectId}/experiment_saved_metrics/${rest}`;
const funnel = { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: 'purchase' }] };
const mean = { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' } };

async function save(body: Record<string, unknown>): Promise<Json> {
  const res = await send(s, 'POST', savedPath(), body);
  const out = await json(res);
  expect(res.status, JSON.stringify(out)).toBe(201);
  return out;
}
const get = async (path: string) => json(await s.api(path));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('experiment_saved_metrics CRUD', () => {
  it('creates, reads, lists by name, changes and deletes a saved metric', async () => {
    const created = await save({ name: 'Zeta purchases', description: 'who buys', query: funnel, tags: ['money'] });
    expect(Object.keys(created).sort()).toEqual(['created_at', 'created_by', 'description', 'id', 'name', 'query', 'tags', 'updated_at']);
    expect(created).toMatchObject({ name: 'Zeta purchases', description: 'who buys', tags: ['money'], query: { ...funnel, uuid: expect.stringMatching(UUID) } });
    // The key's user made it: the same user /api/users/@me/ answers.
    const me = await get('/api/users/@me/');
    expect(created.created_by).toMatchObject({ id: me.id, uuid: me.uuid, email: me.email });
    expect(await get(savedPath(`${created.id}/`))).toEqual(created);

    const alpha = await save({ name: 'alpha revenue', query: mean });
    expect(alpha.description).toBeNull();
    const list = await get(savedPath());
    const names = (list.results as Json[]).map((m) => m.name);
    expect(names.indexOf('alpha revenue')).toBeLessThan(names.indexOf('Zeta purchases'));
    expect(list.count).toBe(list.results.length);

    const changed = await json(await send(s, 'PATCH', savedPath(`${created.id}/`), { name: 'Zeta buyers', query: { ...funnel, conversion_window: 3, conversion_window_unit: 'day' } }));
    expect(changed).toMatchObject({ id: created.id, name: 'Zeta buyers', description: 'who buys', query: { conversion_window: 3, uuid: created.query.uuid } });
    expect(changed.updated_at >= created.updated_at).toBe(true);

    expect((await send(s, 'DELETE', savedPath(`${created.id}/`))).status).toBe(204);
    await expectError(await s.api(savedPath(`${created.id}/`)), 404, 'Not found.');
    await expectError(await send(s, 'DELETE', savedPath(`${created.id}/`)), 404);
    await expectError(await send(s, 'PATCH', savedPath(`${created.id}/`), { name: 'back' }), 404);
    await expectError(await s.api(savedPath('abc/')), 404);
  });

  it('refuses bad input with 400 in the error shape and changes nothing', async () => {
    const refused = async (body: Record<string, unknown>, detail: string | RegExp, attr: string) => expectError(await send(s, 'POST', savedPath(), body), 400, detail, attr);
    await refused({ query: funnel }, 'This field is required.', 'name');
    await refused({ name: 'x'.repeat(401), query: funnel }, 'Ensure this field has no more than 400 characters.', 'name');
    await refused({ name: 'No query' }, 'This field is required.', 'query');
    await refused({ name: 'Empty query', query: {} }, 'Query is required to create a saved metric', 'query');
    await refused({ name: 'Legacy', query: { kind: 'ExperimentTrendsQuery', count_query: {} } }, "Invalid metric: legacy metric kind 'ExperimentTrendsQuery' is no longer supported. Use 'ExperimentMetric' instead.", 'query');
    await refused({ name: 'Legacy funnel', query: { kind: 'ExperimentFunnelsQuery' } }, /legacy metric kind 'ExperimentFunnelsQuery'/, 'query');
    await refused({ name: 'Other kind', query: { kind: 'TrendsQuery' } }, "Invalid metric: metric kind must be 'ExperimentMetric'", 'query');
    await refused({ name: 'Not a dict', query: [1] }, 'Invalid metric: must be a dict', 'query');
    await refused({ name: 'No type', query: { kind: 'ExperimentMetric' } }, /^Invalid metric: \[/, 'query');
    await refused({ name: 'Empty funnel', query: { ...funnel, series: [] } }, /^Invalid metric: funnel metrics require at least one step/, 'query');
    await refused({ name: 'Bad tags', query: funnel, tags: 'x' }, /Expected a list/, 'tags');

    const kept = await save({ name: 'Unique Name', query: funnel });
    await refused({ name: 'unique name', query: mean }, 'A shared metric with this name already exists.', 'name');
    await expectError(await send(s, 'PATCH', savedPath(`${kept.id}/`), { query: { kind: 'ExperimentFunnelsQuery' } }), 400, /legacy metric kind/, 'query');
    await expectError(await send(s, 'PATCH', savedPath(`${kept.id}/`), { query: { ...funnel, uuid: 'another' } }), 400, 'Saved metric UUID cannot be changed', 'query');
    const other = await save({ name: 'Other name', query: funnel });
    await expectError(await send(s, 'PATCH', savedPath(`${other.id}/`), { name: 'UNIQUE NAME' }), 400, 'A shared metric with this name already exists.', 'name');

    expect(await get(savedPath(`${kept.id}/`))).toEqual(kept);
    const names = ((await get(savedPath('?limit=100'))).results as Json[]).map((m) => m.name);
    for (const name of ['No query', 'Empty query', 'Legacy', 'Other kind', 'No type', 'Empty funnel', 'unique name']) expect(names).not.toContain(name);
  });

  it('needs the experiment scopes: read to list, write to create', async () => {
    const readOnly = await keyWith(s, ['experiment:read']);
    expect((await s.api(savedPath(), { key: readOnly })).status).toBe(200);
    await expectError(await send(s, 'POST', savedPath(), { name: 'Scoped', query: funnel }, readOnly), 403);
    const flagsOnly = await keyWith(s, ['feature_flag:read']);
    await expectError(await s.api(savedPath(), { key: flagsOnly }), 403);
  });
});

describe('saved metrics on experiments', () => {
  it('links saved metrics on create and PATCH; reads them back as saved_metrics; query edits show through', async () => {
    const primary = await save({ name: 'Linked primary', query: funnel });
    const secondary = await save({ name: 'Linked secondary', query: mean });
    const e = await createExperiment(s, { name: 'With saved', feature_flag_key: 'with-saved', saved_metrics_ids: [{ id: primary.id, metadata: { type: 'primary' } }] });
    expect(e.saved_metrics).toEqual([
      { id: e.saved_metrics[0].id, experiment: e.id, saved_metric: primary.id, metadata: { type: 'primary' }, created_at: e.created_at, query: primary.query, name: 'Linked primary' },
    ]);
    expect(Number.isInteger(e.saved_metrics[0].id) && e.saved_metrics[0].id > 0).toBe(true);
    expect(e).not.toHaveProperty('saved_metrics_ids');

    const patched = await json(
      await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), {
        saved_metrics_ids: [
          { id: primary.id, metadata: { type: 'primary' } },
          { id: secondary.id, metadata: { type: 'secondary' } },
        ],
      }),
    );
    expect(patched.saved_metrics.map((l: Json) => [l.saved_metric, l.metadata.type])).toEqual([
      [primary.id, 'primary'],
      [secondary.id, 'secondary'],
    ]);
    expect(await get(experimentsPath(s, `${e.id}/`))).toEqual(patched);

    // The experiment reads the saved metric's query and name as they are now.
    await send(s, 'PATCH', savedPath(`${secondary.id}/`), { name: 'Renamed secondary', query: { ...mean, goal: 'decrease' } });
    const after = await get(experimentsPath(s, `${e.id}/`));
    expect(after.saved_metrics[1]).toMatchObject({ saved_metric: secondary.id, name: 'Renamed secondary', query: { goal: 'decrease', uuid: secondary.query.uuid } });

    // A PATCH without saved_metrics_ids leaves the links; an empty list removes them.
    expect((await json(await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { description: 'still linked' }))).saved_metrics).toHaveLength(2);
    expect((await json(await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { saved_metrics_ids: [] }))).saved_metrics).toEqual([]);
  });

  it('deleting a saved metric removes its links', async () => {
    const doomed = await save({ name: 'Doomed', query: funnel });
    const kept = await save({ name: 'Kept', query: mean });
    const ids = [
      { id: doomed.id, metadata: { type: 'primary' } },
      { id: kept.id, metadata: { type: 'secondary' } },
    ];
    const a = await createExperiment(s, { name: 'Cascade A', feature_flag_key: 'cascade-a', saved_metrics_ids: ids });
    const b = await createExperiment(s, { name: 'Cascade B', feature_flag_key: 'cascade-b', saved_metrics_ids: ids.slice(0, 1) });
    expect(a.saved_metrics).toHaveLength(2);
    expect((await send(s, 'DELETE', savedPath(`${doomed.id}/`))).status).toBe(204);
    expect((await get(experimentsPath(s, `${a.id}/`))).saved_metrics.map((l: Json) => l.saved_metric)).toEqual([kept.id]);
    expect((await get(experimentsPath(s, `${b.id}/`))).saved_metrics).toEqual([]);
    // Linking it again names it.
    await expectError(await send(s, 'PATCH', experimentsPath(s, `${b.id}/`), { saved_metrics_ids: ids }), 400, `Saved metric ${doomed.id} does not exist or does not belong to this project`, 'saved_metrics_ids');
  });

  it('refuses unknown, malformed and repeated ids, naming them, and changes nothing', async () => {
    const m = await save({ name: 'Refusals', query: funnel });
    const e = await createExperiment(s, { name: 'Refusing', feature_flag_key: 'refusing', saved_metrics_ids: [{ id: m.id, metadata: { type: 'primary' } }] });
    const patch = (saved_metrics_ids: unknown) => send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { saved_metrics_ids });
    await expectError(await patch([{ id: 987654, metadata: { type: 'primary' } }]), 400, 'Saved metric 987654 does not exist or does not belong to this project', 'saved_metrics_ids');
    await expectError(await patch([{ metadata: { type: 'primary' } }]), 400, 'Saved metric must have an id', 'saved_metrics_ids');
    await expectError(await patch([{ id: m.id, metadata: { kind: 'x' } }]), 400, 'Metadata must have a type key', 'saved_metrics_ids');
    await expectError(await patch([{ id: m.id }, { id: m.id }]), 400, `Saved metric ${m.id} is given more than once`, 'saved_metrics_ids');
    await expectError(await patch('x'), 400, 'Saved metrics must be a list', 'saved_metrics_ids');
    await expectError(
      await send(s, 'POST', experimentsPath(s), { name: 'Refused create', feature_flag_key: 'refused-create', saved_metrics_ids: [{ id: 987654 }] }),
      400,
      /Saved metric 987654/,
      'saved_metrics_ids',
    );
    expect((await get(experimentsPath(s, `${e.id}/`))).saved_metrics.map((l: Json) => l.saved_metric)).toEqual([m.id]);
    const names = ((await get(experimentsPath(s, '?limit=100'))).results as Json[]).map((x) => x.name);
    expect(names).not.toContain('Refused create');
  });

  it("another project neither sees nor links a project's saved metric", async () => {
    const mine = await save({ name: 'Mine only', query: funnel });
    const other = await s.runtime.access.createProject(s.credentials.organization_id, 'Saved elsewhere', { type: 'system' });
    await expectError(await s.api(savedPath(`${mine.id}/`, other.id)), 404);
    await expectError(await send(s, 'PATCH', savedPath(`${mine.id}/`, other.id), { name: 'taken over' }), 404);
    await expectError(await send(s, 'DELETE', savedPath(`${mine.id}/`, other.id)), 404);
    expect((await get(savedPath('', other.id))).results).toEqual([]);
    const res = await send(s, 'POST', `/api/projects/${other.id}/experiments/`, { name: 'Foreign', feature_flag_key: 'foreign-link', saved_metrics_ids: [{ id: mine.id, metadata: { type: 'primary' } }] });
    await expectError(res, 400, `Saved metric ${mine.id} does not exist or does not belong to this project`, 'saved_metrics_ids');
    // The same name is free in the other project.
    const theirs = await send(s, 'POST', savedPath('', other.id), { name: 'Mine only', query: funnel });
    expect(theirs.status).toBe(201);
    expect(await get(savedPath(`${mine.id}/`))).toEqual(mine);
  });
});

describe('history of saved metrics', () => {
  it('logs created, updated and deleted with exact before and after', async () => {
    const m = await save({ name: 'Audited', description: 'first', query: funnel });
    await send(s, 'PATCH', savedPath(`${m.id}/`), { description: 'second', tags: ['t'] });
    await send(s, 'PATCH', savedPath(`${m.id}/`), { description: 'second' });
    expect((await send(s, 'DELETE', savedPath(`${m.id}/`))).status).toBe(204);
    const page = await get(savedPath(`${m.id}/activity/`));
    expect(page.results.map((e: Json) => e.activity)).toEqual(['deleted', 'updated', 'created']);
    const triples = (entry: Json) => entry.detail.changes.map((c: Json) => [c.type, c.action, c.field, c.before, c.after]);
    expect(triples(page.results[1])).toEqual([
      ['ExperimentSavedMetric', 'changed', 'description', 'first', 'second'],
      ['ExperimentSavedMetric', 'changed', 'tags', [], ['t']],
    ]);
    expect(triples(page.results[2])).toEqual([
      ['ExperimentSavedMetric', 'created', 'description', null, 'first'],
      ['ExperimentSavedMetric', 'created', 'name', null, 'Audited'],
      ['ExperimentSavedMetric', 'created', 'query', null, m.query],
      ['ExperimentSavedMetric', 'created', 'tags', null, []],
    ]);
    expect(triples(page.results[0])).toEqual([
      ['ExperimentSavedMetric', 'deleted', 'description', 'second', null],
      ['ExperimentSavedMetric', 'deleted', 'name', 'Audited', null],
      ['ExperimentSavedMetric', 'deleted', 'query', m.query, null],
      ['ExperimentSavedMetric', 'deleted', 'tags', ['t'], null],
    ]);
    expect(page.results[2]).toMatchObject({ scope: 'ExperimentSavedMetric', item_id: String(m.id), detail: { name: 'Audited' } });
    // Linking shows on the experiment's own history, as the list of ids given.
    const linked = await save({ name: 'Audited link', query: funnel });
    const e = await createExperiment(s, { name: 'Audited exp', feature_flag_key: 'audited-exp' });
    await send(s, 'PATCH', experimentsPath(s, `${e.id}/`), { saved_metrics_ids: [{ id: linked.id, metadata: { type: 'secondary' } }] });
    const expPage = await get(experimentsPath(s, `${e.id}/activity/`));
    expect(triples(expPage.results[0])).toEqual([['Experiment', 'changed', 'saved_metrics', null, [{ id: linked.id, metadata: { type: 'secondary' } }]]]);
    const log = await get(`/api/projects/${s.credentials.project_id}/activity_log/?scope=ExperimentSavedMetric&item_id=${m.id}`);
    expect(log.results.map((e: Json) => e.activity)).toEqual(['deleted', 'updated', 'created']);
  });

  it('answers as_of before and after a change, and 404 before it existed', async () => {
    const before = await s.runtime.log.head();
    const m = await save({ name: 'Travelling', query: funnel });
    const e = await createExperiment(s, { name: 'Travelling exp', feature_flag_key: 'travelling', saved_metrics_ids: [{ id: m.id, metadata: { type: 'primary' } }] });
    const createdAt = await s.runtime.log.head();
    const experimentThen = await get(experimentsPath(s, `${e.id}/`));
    const changed = await json(await send(s, 'PATCH', savedPath(`${m.id}/`), { name: 'Travelled', query: mean }));
    const changedAt = await s.runtime.log.head();
    const asOf = (path: string, position: number) => get(`${path}?as_of=position:${position}`);
    expect(await asOf(savedPath(`${m.id}/`), createdAt)).toEqual(m);
    expect(await asOf(savedPath(`${m.id}/`), changedAt)).toEqual(changed);
    await expectError(await s.api(`${savedPath(`${m.id}/`)}?as_of=position:${before}`), 404);
    // The experiment's saved_metrics as they stood: the metric's name and query then.
    expect(await asOf(experimentsPath(s, `${e.id}/`), createdAt)).toEqual(experimentThen);
    expect((await asOf(experimentsPath(s, `${e.id}/`), changedAt)).saved_metrics[0]).toMatchObject({ name: 'Travelled', query: changed.query });
    // Deleted now, still there as of before.
    await send(s, 'DELETE', savedPath(`${m.id}/`));
    await expectError(await s.api(savedPath(`${m.id}/`)), 404);
    expect(await asOf(savedPath(`${m.id}/`), changedAt)).toEqual(changed);
  });
});

describe('ExperimentQuery with a saved metric', () => {
  it("runs the saved metric's query against the experiment's exposures", async () => {
    const start = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const m = await save({ name: 'Query purchase funnel', query: funnel });
    const e = await createExperiment(s, { name: 'Saved query', feature_flag_key: 'saved-query', start_date: start, saved_metrics_ids: [{ id: m.id, metadata: { type: 'primary' } }] });
    // 6 users per arm exposed; in control 2 buy, in test 4 buy.
    const events = [];
    for (let i = 0; i < 12; i++) {
      const variant = i % 2 === 0 ? 'control' : 'test';
      const id = `saved-q-${i}`;
      events.push({ event: '$feature_flag_called', distinct_id: id, properties: { $feature_flag: 'saved-query', $feature_flag_response: variant }, timestamp: at(start, 60 + i) });
      const buys = variant === 'control' ? i < 4 : i < 8;
      if (buys) events.push({ event: 'purchase', distinct_id: id, properties: { amount: 10 }, timestamp: at(start, 120 + i) });
    }
    await ingestEvents(s, events);
    const linked = (await get(experimentsPath(s, `${e.id}/`))).saved_metrics[0];
    const res = await s.api(`/api/projects/${s.credentials.project_id}/query/`, {
      method: 'POST',
      body: JSON.stringify({ query: { kind: 'ExperimentQuery', metric: linked.query, experiment_id: e.id }, refresh: 'force_async' }),
    });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.baseline).toMatchObject({ key: 'control', number_of_samples: 6, sum: 2 });
    expect(body.variant_results).toHaveLength(1);
    expect(body.variant_results[0]).toMatchObject({ key: 'test', number_of_samples: 6, sum: 4 });
  });
});

describe('OpenAPI', () => {
  it('documents the saved metric routes and schemas', async () => {
    const doc = (await (await fetch(`${s.url}/api/schema/?format=json`)).json()) as Json;
    const path = '/api/projects/{project_id}/experiment_saved_metrics/';
    expect(Object.keys(doc.paths[path])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(doc.paths[`${path}{id}/`])).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
    expect(doc.components.schemas.ExperimentSavedMetric.properties).toHaveProperty('query');
    expect(doc.components.schemas.ExperimentToSavedMetric.properties).toHaveProperty('saved_metric');
  });
});
