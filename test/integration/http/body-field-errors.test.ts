import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { tempDir } from '../../support/temp-dir';
import { startTestServer, type TestServer } from '../../support/server';
import { startExportServer, type ExportServer } from '../exports/harness';

// The management bodies are read by their routes' zod schemas in DRF's words: each refusal answers
// the whole error body PostHog would, code included (required, null, blank, max_length, invalid,
// invalid_choice, min_value, or the generic invalid_input), with the field as attr.
const refusal = (code: string, detail: string, attr: string | null) => ({ type: 'validation_error', code, detail, attr });
const WRONG_DATE = 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const answer = async (method: string, path: string, body: unknown) => {
  const res = await s.api(`/api/projects/${s.credentials.project_id}/${path}`, { method, body: JSON.stringify(body) });
  return { status: res.status, body: await json(res) };
};

describe('experiment bodies', () => {
  it.each([
    [{}, refusal('required', 'This field is required.', 'name')],
    [{ name: null, feature_flag_key: 'k' }, refusal('null', 'This field may not be null.', 'name')],
    [{ name: 5, feature_flag_key: 'k' }, refusal('invalid', 'Not a valid string.', 'name')],
    [{ name: '  ', feature_flag_key: 'k' }, refusal('blank', 'This field may not be blank.', 'name')],
    [{ name: 'x'.repeat(401), feature_flag_key: 'k' }, refusal('max_length', 'Ensure this field has no more than 400 characters.', 'name')],
    [{ name: 'n' }, refusal('required', 'This field is required.', 'feature_flag_key')],
    [{ name: 'n', feature_flag_key: 'a b' }, refusal('invalid_input', 'Only letters, numbers, hyphens ("-") & underscores ("_") are allowed.', 'feature_flag_key')],
    [{ name: 'n', feature_flag_key: 'k', start_date: 'soon' }, refusal('invalid', WRONG_DATE, 'start_date')],
    [{ name: 'n', feature_flag_key: 'k', start_date: '2024-02-01T00:00:00Z', end_date: '2024-01-01T00:00:00Z' }, refusal('invalid', 'The end date must not be before the start date.', 'end_date')],
    [{ name: 'n', feature_flag_key: 'k', secondary_metrics: {} }, refusal('invalid', 'Expected a list of metrics.', 'secondary_metrics')],
    [{ name: 'n', feature_flag_key: 'k', filters: [] }, refusal('invalid', 'Expected a JSON object.', 'filters')],
    [{ name: 'n', feature_flag_key: 'k', archived: 1 }, refusal('invalid', 'Must be a valid boolean.', 'archived')],
  ])('POST %j', async (body, expected) => {
    expect(await answer('POST', 'experiments/', body)).toEqual({ status: 400, body: expected });
  });

  it('PATCH: fixed keys are named, read-only ones ignored, fields read as on create', async () => {
    const created = await answer('POST', 'experiments/', { name: 'Patched', feature_flag_key: 'patched' });
    expect(created.status).toBe(201);
    const path = `experiments/${created.body.id}/`;
    expect(await answer('PATCH', path, { zeta: 1, feature_flag_key: 'other', id: 9 })).toEqual({
      status: 400,
      body: refusal('invalid_input', "Can't update keys: feature_flag_key, zeta on Experiment", null),
    });
    expect(await answer('PATCH', path, { description: null })).toEqual({ status: 400, body: refusal('null', 'This field may not be null.', 'description') });
    expect((await answer('PATCH', path, { feature_flag_key: 'patched', status: 'draft', description: '' })).status).toBe(200);
  });
});

describe('survey bodies', () => {
  it.each([
    [{ type: 'api' }, refusal('required', 'This field is required.', 'name')],
    [{ name: 'n' }, refusal('required', 'This field is required.', 'type')],
    [{ name: 'n', type: 'nope' }, refusal('invalid_choice', '"nope" is not a valid choice.', 'type')],
    [{ name: 'n', type: 'api', schedule: 'daily' }, refusal('invalid_choice', '"daily" is not a valid choice.', 'schedule')],
    [{ name: 'n', type: 'api', responses_limit: -1 }, refusal('min_value', 'Ensure this value is greater than or equal to 0.', 'responses_limit')],
    [{ name: 'n', type: 'api', linked_flag_id: 1.5 }, refusal('invalid', 'A valid integer is required.', 'linked_flag_id')],
    [{ name: 'n', type: 'api', questions: {} }, refusal('invalid', 'Expected a list of questions.', 'questions')],
    [{ name: 'n', type: 'api', questions: [{ type: 'open' }] }, refusal('invalid_input', 'Question 1: the question text is required.', 'questions')],
    [{ name: 'n', type: 'api', conditions: 'x' }, refusal('invalid', 'Expected a JSON object.', 'conditions')],
    [{ name: 'n', type: 'api', targeting_flag_filters: { groups: 1 } }, refusal('invalid', 'Expected an object with a list of groups.', 'targeting_flag_filters')],
    [
      { name: 'n', type: 'api', targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
      refusal('invalid_input', 'Invalid operation: User targeting rolls out to everyone. If you want all users to see this survey, remove the targeting.', 'targeting_flag_filters'),
    ],
    [{ name: 'n', type: 'api', remove_targeting_flag: 'yes' }, refusal('invalid', 'Must be a valid boolean.', 'remove_targeting_flag')],
  ])('POST %j', async (body, expected) => {
    expect(await answer('POST', 'surveys/', body)).toEqual({ status: 400, body: expected });
  });
});

describe('early access bodies', () => {
  it.each([
    [{ stage: 'beta' }, refusal('required', 'This field is required.', 'name')],
    [{ name: 'n' }, refusal('required', 'This field is required.', 'stage')],
    [{ name: 'n', stage: 'gamma' }, refusal('invalid_choice', '"gamma" is not a valid choice.', 'stage')],
    [{ name: 'x'.repeat(201), stage: 'beta' }, refusal('max_length', 'Ensure this field has no more than 200 characters.', 'name')],
    [{ name: 'n', stage: 'beta', documentation_url: 'docs' }, refusal('invalid', 'Enter a valid URL.', 'documentation_url')],
    [{ name: 'n', stage: 'beta', payload: null }, refusal('null', 'This field may not be null.', 'payload')],
    [{ name: 'n', stage: 'beta', assignee: 'me' }, refusal('invalid', 'assignee must be null or {type: "user" | "role", name}.', 'assignee')],
    [{ name: 'n', stage: 'beta', feature_flag_id: 'x' }, refusal('invalid', 'A valid integer is required.', 'feature_flag_id')],
    [{ name: '!!!', stage: 'beta' }, refusal('invalid_input', 'The name must contain letters or digits to derive a feature flag key from.', 'name')],
  ])('POST %j', async (body, expected) => {
    expect(await answer('POST', 'early_access_feature/', body)).toEqual({ status: 400, body: expected });
  });

  it('PATCH: rollout_to_all is a boolean', async () => {
    const created = await answer('POST', 'early_access_feature/', { name: 'Patched feature', stage: 'beta' });
    expect(created.status).toBe(201);
    expect(await answer('PATCH', `early_access_feature/${created.body.id}/`, { rollout_to_all: 'yes' })).toEqual({
      status: 400,
      body: refusal('invalid', 'Must be a valid boolean.', 'rollout_to_all'),
    });
  });
});

describe('flag bodies', () => {
  it('POST: the key is required and checked', async () => {
    expect(await answer('POST', 'feature_flags/', { name: 'n' })).toEqual({ status: 400, body: refusal('invalid_input', 'This field is required.', 'key') });
    expect(await answer('POST', 'feature_flags/', { key: 'a b' })).toEqual({
      status: 400,
      body: refusal('invalid_input', 'Only letters, numbers, hyphens ("-") & underscores ("_") are allowed.', 'key'),
    });
  });
});

describe('batch export bodies', () => {
  let e: ExportServer;
  let base: string;
  let destination: { type: string; config: { path: string } };
  beforeAll(async () => {
    e = await startExportServer({ start: '2024-03-10T10:20:00Z' });
    base = `/api/projects/${e.projectId}/batch_exports`;
    destination = { type: 'File', config: { path: tempDir('body-errors-') } };
  });
  afterAll(() => e.close());
  const post = (path: string, body: unknown, status = 400) => e.call(path, { method: 'POST', body: JSON.stringify(body), status });

  it.each([
    [{ interval: 'hour' }, refusal('invalid_input', 'This field is required.', 'name')],
    [{ name: 'x'.repeat(257), interval: 'hour' }, refusal('invalid_input', 'Ensure this field has no more than 256 characters.', 'name')],
    [{ name: 'n', interval: null }, refusal('invalid_input', 'This field is required.', 'interval')],
    [{ name: 'n', interval: 'hour', paused: 'no' }, refusal('invalid_input', 'Must be a valid boolean.', 'paused')],
    [{ name: 'n', interval: 'hour', end_at: 'soon' }, refusal('invalid_input', WRONG_DATE, 'end_at')],
    [{ name: 'n', interval: 'hour', hogql_query: 7 }, refusal('invalid_input', 'Not a valid string.', 'hogql_query')],
  ])('POST %j', async (body, expected) => {
    expect(await post(`${base}/`, { destination, ...body })).toEqual(expected);
  });

  it('backfill and unpause bodies', async () => {
    const created = await post(`${base}/`, { name: 'bodies', destination, interval: 'hour' }, 201);
    const one = `${base}/${created!.id}`;
    expect(await post(`${one}/backfill/`, { end_at: 'nope' })).toEqual(refusal('invalid_input', 'This field is required.', 'start_at'));
    expect(await post(`${one}/backfill/`, { start_at: '2024-03-01T00:00:00' })).toEqual(refusal('invalid_input', 'Input 2024-03-01T00:00:00 is naive.', 'start_at'));
    expect(await post(`${one}/backfill/`, { start_at: '2024-03-01T00:00:00Z', end_at: 'later' })).toEqual(
      refusal('invalid_input', 'Input later is not a valid ISO formatted datetime.', 'end_at'),
    );
    expect(await post(`${one}/unpause/`, { backfill: 'yes' })).toEqual(refusal('invalid_input', 'Must be a valid boolean.', 'backfill'));
  });
});

describe('order of refusals', () => {
  it('a survey without a type is refused for it before its other fields are read', async () => {
    expect(await answer('POST', 'surveys/', { name: 'n', description: 5 })).toEqual({ status: 400, body: refusal('required', 'This field is required.', 'type') });
  });
});
