import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { errorShapeProblem } from './raw-request';

// What used to be accepted and then fail (or silently match nobody) at evaluation time is refused
// when it is written: 400 in the error shape, nothing appended (issue 12, item 6).
let s: TestServer;
let p: number;
let cohortId: number;
let otherProjectCohortId: number;

const flagsPath = () => `/api/projects/${p}/feature_flags/`;
const experimentsPath = (project: number, rest = '') => `/api/projects/${project}/experiments/${rest}`;
const send = (path: string, method: string, body: unknown) => s.api(path, { method, body: JSON.stringify(body) });
const condition = (property: Record<string, unknown>) => ({ groups: [{ properties: [property], rollout_percentage: 100 }] });

/** An experiment with a start date and its exposure cohort, in the given project; the cohort id. */
async function exposureCohort(project: number, key: string): Promise<number> {
  const created = await json(await send(experimentsPath(project), 'POST', { name: key, feature_flag_key: key, start_date: '2024-01-01T00:00:00Z' }));
  const linked = await json(await send(experimentsPath(project, `${created.id}/create_exposure_cohort_for_experiment/`), 'POST', {}));
  expect(Number.isInteger(linked.exposure_cohort), JSON.stringify(linked)).toBe(true);
  return linked.exposure_cohort;
}

async function expectRefused(res: Promise<Response>, code: string, attr: string) {
  const before = await s.runtime.log.head();
  const r = await res;
  const text = await r.text();
  expect(r.status, text).toBe(400);
  expect(errorShapeProblem(text)).toBeNull();
  expect(JSON.parse(text)).toMatchObject({ type: 'validation_error', code, attr });
  expect(await s.runtime.log.head()).toBe(before);
  return JSON.parse(text) as { detail: string };
}

beforeAll(async () => {
  s = await startTestServer();
  p = s.credentials.project_id;
  cohortId = await exposureCohort(p, 'here');
  const other = await s.runtime.access.createProject(s.credentials.organization_id, 'Other', { type: 'system' });
  otherProjectCohortId = await exposureCohort(other.id, 'there');
});
afterAll(() => s.close());

describe('flag conditions', () => {
  it('a cohort must be one of the project\'s', async () => {
    const cohort = (value: unknown) => condition({ key: 'id', type: 'cohort', value });
    const missing = await expectRefused(send(flagsPath(), 'POST', { key: 'c1', filters: cohort(999_999) }), 'cohort_does_not_exist', 'filters');
    expect(missing.detail).toBe('Cohort with id 999999 does not exist');
    await expectRefused(send(flagsPath(), 'POST', { key: 'c2', filters: cohort(otherProjectCohortId) }), 'cohort_does_not_exist', 'filters');
    await expectRefused(send(flagsPath(), 'POST', { key: 'c3', filters: cohort('abc') }), 'cohort_does_not_exist', 'filters');
    await expectRefused(send(flagsPath(), 'POST', { key: 'c4', filters: cohort(null) }), 'cohort_does_not_exist', 'filters');
    const ok = await send(flagsPath(), 'POST', { key: 'c5', filters: cohort(cohortId) });
    expect(ok.status).toBe(201);
    expect((await send(flagsPath(), 'POST', { key: 'c6', filters: cohort(String(cohortId)) })).status).toBe(201);
    const { id } = await json(ok);
    await expectRefused(send(`${flagsPath()}${id}/`, 'PATCH', { filters: cohort(otherProjectCohortId) }), 'cohort_does_not_exist', 'filters');
  });

  it('date operands must be dates, absolute or relative', async () => {
    let n = 0;
    for (const operator of ['is_date_before', 'is_date_after', 'is_date_exact']) {
      for (const value of ['yesterday', 'not a date', '2024-13-01', '2024-02-30', '-7x', '10000d', 12345, null, ['2024-01-01'], {}])
        await expectRefused(
          send(flagsPath(), 'POST', { key: `d${n++}`, filters: condition({ key: 'signed_up', type: 'person', operator, value }) }),
          'invalid_date',
          'filters',
        );
      for (const value of ['-7d', '2h', '-1y', '2024-01-01', '2024-01-01T10:00:00Z', '2024-01-01 10:00:00+02:00']) {
        const res = await send(flagsPath(), 'POST', { key: `d${n++}`, filters: condition({ key: 'signed_up', type: 'person', operator, value }) });
        expect(res.status, `${operator} ${value}: ${await res.text()}`).toBe(201);
      }
    }
  });

  it('semver operands must be versions (wildcard: a version pattern)', async () => {
    let n = 0;
    const cases: [string, unknown[], unknown[]][] = [
      ['semver_gt', ['abc', '1.2.3.4', '1..2', '', null, {}, '1.2.3-'], ['1.2.3', 'v1.2', '3', '1.2.3-beta.1', '1.0.0+build', 2]],
      ['semver_eq', ['x.y.z'], ['0.0.1']],
      ['semver_tilde', ['~', 'one'], ['1.2.3']],
      ['semver_caret', ['^1.2'], ['1.2.3']],
      ['semver_wildcard', ['1.*.3', 'abc', '**'], ['1.*', '1.2.*', '*', '1.2.3']],
    ];
    for (const [operator, bad, good] of cases) {
      for (const value of bad)
        await expectRefused(
          send(flagsPath(), 'POST', { key: `s${n++}`, filters: condition({ key: 'app_version', type: 'person', operator, value }) }),
          'invalid_semver',
          'filters',
        );
      for (const value of good) {
        const res = await send(flagsPath(), 'POST', { key: `s${n++}`, filters: condition({ key: 'app_version', type: 'person', operator, value }) });
        expect(res.status, `${operator} ${JSON.stringify(value)}: ${await res.text()}`).toBe(201);
      }
    }
  });

  it('super groups are checked too', async () => {
    await expectRefused(
      send(flagsPath(), 'POST', {
        key: 'sg',
        filters: { groups: [{ properties: [], rollout_percentage: 0 }], super_groups: [{ properties: [{ key: 'x', type: 'person', operator: 'is_date_after', value: 'soon' }], rollout_percentage: 100 }] },
      }),
      'invalid_date',
      'filters',
    );
  });
});

describe('experiment dates', () => {
  it('end_date before start_date is refused at create', async () => {
    await expectRefused(
      send(experimentsPath(p), 'POST', { name: 'e', feature_flag_key: 'e-bad', start_date: '2024-02-01T00:00:00Z', end_date: '2024-01-31T23:59:59Z' }),
      'invalid',
      'end_date',
    );
    const same = await send(experimentsPath(p), 'POST', { name: 'e', feature_flag_key: 'e-same', start_date: '2024-02-01T00:00:00Z', end_date: '2024-02-01T00:00:00Z' });
    expect(same.status).toBe(201);
  });

  it('a PATCH is checked against the stored dates', async () => {
    const created = await json(await send(experimentsPath(p), 'POST', { name: 'e', feature_flag_key: 'e-patch', start_date: '2024-02-01T00:00:00Z' }));
    const path = experimentsPath(p, `${created.id}/`);
    await expectRefused(send(path, 'PATCH', { end_date: '2024-01-01T00:00:00Z' }), 'invalid', 'end_date');
    expect((await send(path, 'PATCH', { end_date: '2024-03-01T00:00:00Z' })).status).toBe(200);
    await expectRefused(send(path, 'PATCH', { start_date: '2024-04-01T00:00:00Z' }), 'invalid', 'end_date');
    await expectRefused(send(path, 'PATCH', { start_date: '2024-02-01T00:00:00Z', end_date: '2024-01-01T00:00:00Z' }), 'invalid', 'end_date');
    expect((await send(path, 'PATCH', { end_date: null })).status).toBe(200);
    expect((await send(path, 'PATCH', { start_date: '2024-04-01T00:00:00Z' })).status).toBe(200);
  });
});
