import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type Json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { tempDir } from '../../support/temp-dir';
import { expectError, send } from '../experiments/helpers';

// `as_of` on every management GET of a resource: the object as it stood at a log position or a
// moment, in the live shape; 404 before it existed; 400 for a point that is not one.
let s: TestServer;
let p: string;
beforeAll(async () => {
  s = await startTestServer({ env: { EXPORT_FILE_ROOT: tempDir('tt-exports-') } });
  p = `/api/projects/${s.credentials.project_id}`;
});
afterAll(() => s.close());

const get = async (path: string) => {
  const res = await s.api(path);
  return { status: res.status, body: await json(res) };
};
const ok = async (method: string, path: string, body?: unknown) => {
  const res = await send(s, method, path, body);
  const out = res.status === 204 ? null : await json(res);
  expect(res.status, JSON.stringify(out)).toBeLessThan(300);
  return out;
};
const at = (path: string, asOf: string) => `${path}${path.includes('?') ? '&' : '?'}as_of=${encodeURIComponent(asOf)}`;
const head = () => s.runtime.log.head();

/** Every path's live body now, to compare with `as_of` answers later. */
async function snapshot(paths: string[]): Promise<Map<string, { status: number; body: Json }>> {
  return new Map(await Promise.all(paths.map(async (path) => [path, await get(path)] as const)));
}
async function expectAsOf(before: Map<string, { status: number; body: Json }>, asOf: string) {
  for (const [path, then] of before) expect(await get(at(path, asOf)), `${path} as_of ${asOf}`).toEqual(then);
}

describe('as_of on resources', () => {
  it('answers each resource as it stood before and after changes, and 404 before it existed', async () => {
    const beforeAll = await head();
    const flag = await ok('POST', `${p}/feature_flags/`, { key: 'tt-flag', name: 'first', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    const experiment = await ok('POST', `${p}/experiments/`, { name: 'TT exp', feature_flag_key: 'tt-exp', start_date: '2026-01-01T00:00:00Z' });
    const withCohort = await ok('POST', `${p}/experiments/${experiment.id}/create_exposure_cohort_for_experiment/`, {});
    const survey = await ok('POST', `${p}/surveys/`, { name: 'TT survey', type: 'popover', questions: [{ type: 'open', question: 'Why?' }] });
    const feature = await ok('POST', `${p}/early_access_feature/`, { name: 'TT feature', stage: 'beta' });
    const exp = await ok('POST', `${p}/batch_exports/`, { name: 'tt-export', destination: { type: 'File', config: { path: s.config.EXPORT_FILE_ROOT } }, interval: 'hour' });
    const paths = [
      `${p}/feature_flags/${flag.id}/`,
      `${p}/experiments/${experiment.id}/`,
      `${p}/cohorts/${withCohort.exposure_cohort}/`,
      `${p}/surveys/${survey.id}/`,
      `${p}/early_access_feature/${feature.id}/`,
      `${p}/batch_exports/${exp.id}/`,
    ];
    const created = await snapshot(paths);
    for (const [path, then] of created) expect(then.status, path).toBe(200);
    const createdAt = await head();

    // Change every one of them.
    await ok('PATCH', `${p}/feature_flags/${flag.id}/`, { name: 'second', filters: { groups: [{ properties: [], rollout_percentage: 90 }] } });
    await ok('PATCH', `${p}/experiments/${experiment.id}/`, { name: 'TT exp renamed', description: 'now with words' });
    await ok('PATCH', `${p}/surveys/${survey.id}/`, { name: 'TT survey renamed' });
    await ok('PATCH', `${p}/early_access_feature/${feature.id}/`, { name: 'TT feature renamed', stage: 'general-availability' });
    await ok('PATCH', `${p}/batch_exports/${exp.id}/`, { name: 'tt-export renamed' });
    const changed = await snapshot(paths);
    const changedAt = await head();
    for (const path of paths.filter((x) => !x.includes('/cohorts/'))) expect(changed.get(path), path).not.toEqual(created.get(path));

    // As of each point: exactly what the live service answered then.
    await expectAsOf(created, `position:${createdAt}`);
    await expectAsOf(changed, `position:${changedAt}`);
    // Before anything existed: not found, in the error shape.
    for (const path of paths) await expectError(await s.api(at(path, `position:${beforeAll}`)), 404);

    // Deleted now: the live GET says 404, the past still answers.
    await ok('DELETE', `${p}/feature_flags/${flag.id}/`);
    await ok('DELETE', `${p}/surveys/${survey.id}/`);
    await ok('DELETE', `${p}/batch_exports/${exp.id}/`);
    for (const path of [paths[0], paths[3], paths[5]]) {
      expect((await s.api(path)).status, path).toBe(404);
      expect(await get(at(path, `position:${changedAt}`)), path).toEqual(changed.get(path));
    }
  });

  it('reads a moment as the events recorded at or before it', async () => {
    const flag = await ok('POST', `${p}/feature_flags/`, { key: 'tt-timed', name: 'v1' });
    const path = `${p}/feature_flags/${flag.id}/`;
    const v1 = await get(path);
    const [created] = await s.runtime.log.readStream(`featureflag-${s.credentials.project_id}-tt-timed`);
    // Later than the creation by a clear margin, then the change.
    await new Promise((r) => setTimeout(r, 30));
    const between = new Date(Date.parse(created.metadata.recordedAt) + 15).toISOString();
    await ok('PATCH', path, { name: 'v2' });
    expect(await get(at(path, between))).toEqual(v1);
    expect((await get(at(path, new Date().toISOString()))).body.name).toBe('v2');
    expect((await get(at(path, new Date(Date.parse(created.metadata.recordedAt) - 1).toISOString()))).status).toBe(404);
    // A date alone is its midnight UTC: long before this flag.
    expect((await get(at(path, '2020-01-01'))).status).toBe(404);
  });

  it('refuses an as_of that is not a point, with 400 in the error shape', async () => {
    const flag = await ok('POST', `${p}/feature_flags/`, { key: 'tt-bad' });
    for (const bad of ['', 'yesterday', 'position:', 'position:-1', 'position:1.5', '2026-13-45T00:00:00Z', 'position:12abc'])
      await expectError(await s.api(at(`${p}/feature_flags/${flag.id}/`, bad)), 400, /as_of/, 'as_of');
  });
});
