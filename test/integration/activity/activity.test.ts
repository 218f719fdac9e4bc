import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cohortStream } from '../../../streams';
import { json, type Json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { TEST_EXPORT_ENV } from '../exports/harness';
import { keyWith } from '../experiments/helpers';

/**
 * Issue 23 item 2: activity history derived from the log. Every resource type is created, changed
 * and deleted over HTTP; its activity answers each step with exact before/after, who made it (user
 * and key label), newest first, with credentials masked, scoped like the resource, paged, filtered
 * and confined to the project.
 */
let s: TestServer;
let base: string;
const SECRET = 'wJalrXUtnFEMI-activity-secret';

async function call(method: string, path: string, body?: unknown, key?: string): Promise<Json> {
  const res = await s.api(path, { method, body: body === undefined ? undefined : JSON.stringify(body), ...(key ? { key } : {}) });
  const out = res.status === 204 ? null : await json(res);
  expect(res.status, `${method} ${path}: ${JSON.stringify(out)}`).toBeLessThan(300);
  return out;
}
const get = (path: string, key?: string) => call('GET', path, undefined, key);
/** The changes of one entry as [field, before, after] triples. */
const triples = (entry: Json) => entry.detail.changes.map((c: Json) => [c.field, c.before, c.after]);
const actions = (entry: Json) => [...new Set(entry.detail.changes.map((c: Json) => c.action))];

beforeAll(async () => {
  s = await startTestServer({ env: TEST_EXPORT_ENV });
  base = `/api/projects/${s.credentials.project_id}`;
});
afterAll(() => s.close());

describe('activity of each resource', () => {
  it('feature flags: created, updated, deleted, with exact before/after, the user and the key label', async () => {
    const filters = { groups: [{ properties: [], rollout_percentage: 50 }] };
    const flag = await call('POST', `${base}/feature_flags/`, { key: 'act-flag', name: 'First', filters });
    const changed = await call('PATCH', `${base}/feature_flags/${flag.id}/`, { name: 'Second', filters: { groups: [{ properties: [], rollout_percentage: 75 }] } });
    // A PATCH that changes nothing writes no entry.
    await call('PATCH', `${base}/feature_flags/${flag.id}/`, { name: 'Second' });
    await call('DELETE', `${base}/feature_flags/${flag.id}/`);

    const page = await get(`${base}/feature_flags/${flag.id}/activity/`);
    expect(page.total_count).toBe(3);
    expect(page.results.map((e: Json) => e.activity)).toEqual(['deleted', 'updated', 'created']);
    const [deleted, updated, created] = page.results;
    for (const e of page.results) {
      expect(e).toMatchObject({ scope: 'FeatureFlag', item_id: String(flag.id), is_system: false, actor_type: 'user', detail: { id: String(flag.id), name: 'act-flag' } });
      expect(e.user.email).toBe(flag.created_by.email);
      expect(e.api_key.label).toBeTypeOf('string');
    }
    expect(actions(created)).toEqual(['created']);
    // Fields in name order.
    expect(triples(created)).toEqual([
      ['active', null, true],
      ['ensure_experience_continuity', null, false],
      ['filters', null, flag.filters],
      ['key', null, 'act-flag'],
      ['name', null, 'First'],
    ]);
    expect(actions(updated)).toEqual(['changed']);
    expect(triples(updated)).toEqual([
      ['filters', flag.filters, changed.filters],
      ['name', 'First', 'Second'],
    ]);
    expect(actions(deleted)).toEqual(['deleted']);
    expect(triples(deleted)).toEqual([
      ['active', true, null],
      ['ensure_experience_continuity', false, null],
      ['filters', changed.filters, null],
      ['key', 'act-flag', null],
      ['name', 'Second', null],
    ]);
    expect(Date.parse(deleted.created_at)).toBeGreaterThanOrEqual(Date.parse(created.created_at));
  });

  it('experiments (and the exposure cohort), with the flag the experiment made', async () => {
    const exp = await call('POST', `${base}/experiments/`, { name: 'Exp A', feature_flag_key: 'act-exp', start_date: '2026-01-01T00:00:00Z' });
    await call('PATCH', `${base}/experiments/${exp.id}/`, { name: 'Exp B', description: 'now described' });
    const linked = await call('POST', `${base}/experiments/${exp.id}/create_exposure_cohort_for_experiment/`);
    const cohortId = linked.exposure_cohort;
    await call('DELETE', `${base}/experiments/${exp.id}/`);

    const page = await get(`${base}/experiments/${exp.id}/activity/`);
    expect(page.results.map((e: Json) => e.activity)).toEqual(['deleted', 'updated', 'updated', 'created']);
    const [deleted, cohortSet, renamed, created] = page.results;
    expect(triples(created)).toEqual(
      expect.arrayContaining([
        ['name', null, 'Exp A'],
        ['feature_flag_key', null, 'act-exp'],
        ['start_date', null, '2026-01-01T00:00:00.000Z'],
      ]),
    );
    expect(triples(renamed)).toEqual([
      ['description', '', 'now described'],
      ['name', 'Exp A', 'Exp B'],
    ]);
    expect(triples(cohortSet)).toEqual([['exposure_cohort', null, cohortId]]);
    expect(triples(deleted)).toEqual(expect.arrayContaining([['name', 'Exp B', null], ['exposure_cohort', cohortId, null]]));

    // The experiment's flag has its own history, under its own id; deleting the experiment deleted it.
    const flagPage = await get(`${base}/feature_flags/${exp.feature_flag.id}/activity/`);
    expect(flagPage.results.map((e: Json) => e.activity)).toEqual(['deleted', 'created']);

    // The cohort: created by the link, deleted by a command appended to its stream.
    const appended = await s.runtime.log.append(cohortStream(cohortId), [{ type: 'CohortDeleted', data: { cohortId, projectId: s.credentials.project_id } }], {
      context: { actor: { type: 'cli' }, projectId: s.credentials.project_id },
    });
    await s.runtime.runner.waitFor(appended.lastPosition, ['activity']);
    const cohort = await get(`${base}/cohorts/${cohortId}/activity/`);
    expect(cohort.results.map((e: Json) => e.activity)).toEqual(['deleted', 'created']);
    expect(triples(cohort.results[1])).toEqual(expect.arrayContaining([['name', null, 'Users exposed to experiment "Exp B"'], ['experiment', null, exp.id]]));
    expect(triples(cohort.results[0])).toEqual(expect.arrayContaining([['name', 'Users exposed to experiment "Exp B"', null]]));
    // Made from the CLI: the system, no key.
    expect(cohort.results[0]).toMatchObject({ user: { first_name: 'System', email: null, is_system: true }, is_system: true, actor_type: 'cli', api_key: null });
  });

  it('surveys and early access features', async () => {
    const survey = await call('POST', `${base}/surveys/`, { name: 'Survey A', type: 'api', questions: [{ type: 'open', question: 'Why?' }] });
    await call('PATCH', `${base}/surveys/${survey.id}/`, { name: 'Survey B', archived: true });
    await call('DELETE', `${base}/surveys/${survey.id}/`);
    const surveyPage = await get(`${base}/surveys/${survey.id}/activity/`);
    expect(surveyPage.results.map((e: Json) => e.activity)).toEqual(['deleted', 'updated', 'created']);
    expect(triples(surveyPage.results[1])).toEqual([
      ['archived', false, true],
      ['name', 'Survey A', 'Survey B'],
    ]);
    expect(triples(surveyPage.results[2])).toEqual(expect.arrayContaining([['name', null, 'Survey A'], ['type', null, 'api']]));
    expect(triples(surveyPage.results[0])).toEqual(expect.arrayContaining([['name', 'Survey B', null], ['archived', true, null]]));

    const feature = await call('POST', `${base}/early_access_feature/`, { name: 'Beta A', stage: 'beta' });
    await call('PATCH', `${base}/early_access_feature/${feature.id}/`, { stage: 'alpha' });
    await call('DELETE', `${base}/early_access_feature/${feature.id}/`);
    const featurePage = await get(`${base}/early_access_feature/${feature.id}/activity/`);
    expect(featurePage.results.map((e: Json) => e.activity)).toEqual(['deleted', 'updated', 'created']);
    expect(triples(featurePage.results[1])).toEqual([['stage', 'beta', 'alpha']]);
    expect(triples(featurePage.results[2])).toEqual(expect.arrayContaining([['name', null, 'Beta A'], ['stage', null, 'beta'], ['feature_flag_key', null, feature.feature_flag.key]]));
    expect(triples(featurePage.results[0])).toEqual(expect.arrayContaining([['name', 'Beta A', null], ['stage', 'alpha', null]]));
  });

  it('batch exports: credentials masked in every entry, a changed secret still shows as a change', async () => {
    const destination = { type: 'S3', config: { bucket_name: 'b', region: 'eu-west-1', aws_access_key_id: 'AKIAACTIVITY', aws_secret_access_key: SECRET, endpoint_url: 'http://127.0.0.1:1' } };
    const exp = await call('POST', `${base}/batch_exports/`, { name: 'Nightly', interval: 'hour', destination });
    await call('PATCH', `${base}/batch_exports/${exp.id}/`, { name: 'Hourly', destination: { type: 'S3', config: { aws_secret_access_key: `${SECRET}-2` } } });
    await call('POST', `${base}/batch_exports/${exp.id}/pause/`);
    await call('DELETE', `${base}/batch_exports/${exp.id}/`);

    const res = await s.api(`${base}/batch_exports/${exp.id}/activity/`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('AKIAACTIVITY');
    expect(text).not.toContain('enc:v1:');
    const page = JSON.parse(text);
    expect(page.results.map((e: Json) => e.activity)).toEqual(['deleted', 'updated', 'updated', 'created']);
    const [, paused, changed, created] = page.results;
    const masked = { bucket_name: 'b', region: 'eu-west-1', aws_access_key_id: 'masked', aws_secret_access_key: 'masked', endpoint_url: 'http://127.0.0.1:1' };
    expect(triples(created)).toEqual(expect.arrayContaining([['name', null, 'Nightly'], ['interval', null, 'hour'], ['paused', null, false]]));
    expect(triples(created).find((t: Json[]) => t[0] === 'destination')[2]).toMatchObject({ type: 'S3', config: masked });
    // Only the secret changed in the destination: before and after both show it masked.
    const [destinationChange, nameChange] = triples(changed);
    expect(destinationChange).toMatchObject(['destination', { type: 'S3', config: masked }, { type: 'S3', config: masked }]);
    expect(nameChange).toEqual(['name', 'Nightly', 'Hourly']);
    expect(triples(paused)).toEqual([['paused', false, true]]);
  });
});

describe('the project log', () => {
  it('is newest first, paged like the other lists, and filters by scope, item, user and time', async () => {
    const all = await get(`${base}/activity_log/?limit=1000`);
    expect(all.count).toBe(all.results.length);
    expect(all.count).toBeGreaterThan(15);
    const times = all.results.map((e: Json) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);

    const first = await get(`${base}/activity_log/?limit=5`);
    expect(first.results).toEqual(all.results.slice(0, 5));
    expect(first.previous).toBeNull();
    const second = await json(await fetch(first.next, { headers: { authorization: `Bearer ${s.credentials.personal_api_key}` } }));
    expect(second.results).toEqual(all.results.slice(5, 10));
    expect(second.previous).toContain('offset=0');

    const flags = await get(`${base}/activity_log/?scope=FeatureFlag&limit=1000`);
    expect(flags.results.length).toBeGreaterThan(0);
    expect(flags.results.every((e: Json) => e.scope === 'FeatureFlag')).toBe(true);
    expect(flags.count).toBe(all.results.filter((e: Json) => e.scope === 'FeatureFlag').length);

    const one = flags.results[0];
    const item = await get(`${base}/activity_log/?scope=FeatureFlag&item_id=${one.item_id}`);
    expect(item.results.every((e: Json) => e.item_id === one.item_id && e.scope === 'FeatureFlag')).toBe(true);

    const byUser = await get(`${base}/activity_log/?user=${one.user.id}&limit=1000`);
    expect(byUser.count).toBe(all.results.filter((e: Json) => e.user.id === one.user.id).length);
    const nobody = await get(`${base}/activity_log/?user=999999`);
    expect(nobody.count).toBe(0);

    const middle = all.results[Math.floor(all.results.length / 2)].created_at;
    const after = await get(`${base}/activity_log/?after=${encodeURIComponent(middle)}&limit=1000`);
    expect(after.count).toBe(all.results.filter((e: Json) => e.created_at >= middle).length);
    const before = await get(`${base}/activity_log/?before=${encodeURIComponent(middle)}&limit=1000`);
    expect(before.count).toBe(all.results.filter((e: Json) => e.created_at <= middle).length);

    const bad = await s.api(`${base}/activity_log/?after=yesterday-ish`);
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ type: 'validation_error', attr: 'after' });
    const badScope = await s.api(`${base}/activity_log/?scope=Nothing`);
    expect(badScope.status).toBe(400);
  });

  it('is scoped like each resource: the log needs activity_log:read, and shows only what the key may read', async () => {
    const flagsOnly = await keyWith(s, ['feature_flag:read']);
    const refused = await s.api(`${base}/activity_log/`, { key: flagsOnly });
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({ code: 'permission_denied' });
    const noExperiments = await s.api(`${base}/experiments/1/activity/`, { key: flagsOnly });
    expect(noExperiments.status).toBe(403);

    const logAndFlags = await keyWith(s, ['activity_log:read', 'feature_flag:read']);
    const seen = await get(`${base}/activity_log/?limit=1000`, logAndFlags);
    expect(seen.count).toBeGreaterThan(0);
    expect(new Set(seen.results.map((e: Json) => e.scope))).toEqual(new Set(['FeatureFlag']));
    const logOnly = await keyWith(s, ['activity_log:read']);
    expect((await get(`${base}/activity_log/`, logOnly)).count).toBe(0);
    // The resource's own activity needs only its read scope.
    const flag = (await get(`${base}/activity_log/?scope=FeatureFlag`)).results[0];
    expect((await get(`${base}/feature_flags/${flag.item_id}/activity/`, flagsOnly)).total_count).toBeGreaterThan(0);
  });

  it("pages a resource's activity by page and limit, and 404s an item the project never had", async () => {
    const flag = await call('POST', `${base}/feature_flags/`, { key: 'act-paged', name: 'p0' });
    for (let i = 1; i <= 4; i++) await call('PATCH', `${base}/feature_flags/${flag.id}/`, { name: `p${i}` });
    const first = await get(`${base}/feature_flags/${flag.id}/activity/?limit=2`);
    expect(first.total_count).toBe(5);
    expect(first.results.map((e: Json) => triples(e).find((t: Json[]) => t[0] === 'name')[2])).toEqual(['p4', 'p3']);
    expect(first.previous).toBeNull();
    expect(first.next).toMatch(/page=2/);
    const third = await get(`${base}/feature_flags/${flag.id}/activity/?limit=2&page=3`);
    expect(third.results.map((e: Json) => e.activity)).toEqual(['created']);
    expect(third.next).toBeNull();
    expect(third.previous).toMatch(/page=2/);

    const whole = await get(`${base}/feature_flags/activity/?limit=100`);
    expect(whole.results.every((e: Json) => e.scope === 'FeatureFlag')).toBe(true);
    expect(whole.total_count).toBeGreaterThanOrEqual(5);

    const missing = await s.api(`${base}/feature_flags/999999/activity/`);
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ code: 'not_found' });
  });

  it("never shows another project's activity", async () => {
    const other = await s.runtime.access.createProject(s.credentials.organization_id, 'Other', { type: 'system' });
    const otherFlag = await call('POST', `/api/projects/${other.id}/feature_flags/`, { key: 'other-secret-flag', name: 'other' });
    const mine = await get(`${base}/activity_log/?limit=1000`);
    expect(JSON.stringify(mine)).not.toContain('other-secret-flag');
    const theirs = await get(`/api/projects/${other.id}/activity_log/`);
    expect(theirs.count).toBe(1);
    expect(theirs.results[0].detail.name).toBe('other-secret-flag');
    // The other project's flag id does not open its history through this project.
    const crossed = await s.api(`${base}/feature_flags/${otherFlag.id}/activity/`);
    expect(crossed.status).toBe(404);
  });
});
