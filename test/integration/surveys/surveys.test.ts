import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { expectError, ingestEvents, keyWith, send } from '../experiments/helpers';
import { evaluate } from '../flags/helpers';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const surveysPath = (rest = '') => `/api/projects/${s.credentials.project_id}/surveys/${rest}`;
const publicSurveys = (token: string, origin = 'https://shop.example') =>
  fetch(`${s.url}/api/surveys/?token=${encodeURIComponent(token)}&_=${Date.now()}`, { headers: { origin } });

async function create(body: Record<string, unknown>) {
  const res = await send(s, 'POST', surveysPath(), body);
  const out = await json(res);
  expect(res.status, JSON.stringify(out)).toBe(201);
  return out;
}

const nps = {
  name: 'NPS',
  description: 'How likely…',
  type: 'popover',
  questions: [
    { type: 'rating', question: 'How likely are you to recommend us?', scale: 10, display: 'number' },
    { type: 'single_choice', question: 'Role?', choices: ['Engineer', 'PM'], id: 'role' },
  ],
  conditions: { url: '/pricing', urlMatchType: 'icontains' },
  start_date: '2026-01-01T00:00:00Z',
};

describe('survey management API', () => {
  it('creates, retrieves, lists, searches, patches and deletes in PostHog shapes', async () => {
    const created = await create(nps);
    expect(created).toMatchObject({
      name: 'NPS',
      type: 'popover',
      start_date: '2026-01-01T00:00:00.000Z',
      end_date: null,
      archived: false,
      linked_flag: null,
      targeting_flag: null,
      conditions: { url: '/pricing', urlMatchType: 'icontains' },
      responses_count: 0,
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    // A question without an id gets one; a given id is kept.
    expect(created.questions[0].id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.questions[1].id).toBe('role');
    expect(created.created_by.id).toBeGreaterThan(0);

    expect(await json(await s.api(surveysPath(`${created.id}/`)))).toEqual(created);
    const list = await json(await s.api(surveysPath()));
    expect(list.count).toBe(1);
    expect(list.results[0].id).toBe(created.id);
    expect((await json(await s.api(surveysPath('?search=likely')))).count).toBe(1);
    expect((await json(await s.api(surveysPath('?search=nothing-like-it')))).count).toBe(0);

    const patched = await json(await send(s, 'PATCH', surveysPath(`${created.id}/`), { end_date: '2026-02-01T00:00:00Z', name: 'NPS Q1' }));
    expect(patched).toMatchObject({ name: 'NPS Q1', end_date: '2026-02-01T00:00:00.000Z', questions: created.questions });

    expect((await send(s, 'DELETE', surveysPath(`${created.id}/`))).status).toBe(204);
    await expectError(await s.api(surveysPath(`${created.id}/`)), 404);
    await expectError(await send(s, 'DELETE', surveysPath(`${created.id}/`)), 404);
    await expectError(await s.api(surveysPath('not-a-uuid/')), 404);
  });

  it('refuses bad input with the error shape and appends nothing', async () => {
    await create({ name: 'Taken', type: 'api' });
    const before = await s.runtime.log.head();
    await expectError(await send(s, 'POST', surveysPath(), { type: 'popover' }), 400, 'This field is required.', 'name');
    await expectError(await send(s, 'POST', surveysPath(), { name: 'x' }), 400, 'This field is required.', 'type');
    await expectError(await send(s, 'POST', surveysPath(), { name: 'x', type: 'banner' }), 400, /not a valid choice/, 'type');
    await expectError(await send(s, 'POST', surveysPath(), { name: 'Taken', type: 'api' }), 400, 'There is already a survey with this name.', 'name');
    await expectError(await send(s, 'POST', surveysPath(), { name: 'x', type: 'api', schedule: 'weekly' }), 400, /not a valid choice/, 'schedule');
    await expectError(await send(s, 'POST', surveysPath(), { name: 'x', type: 'api', questions: [{ type: 'open' }] }), 400, /question text is required/, 'questions');
    await expectError(await send(s, 'POST', surveysPath(), { name: 'x', type: 'api', questions: [{ type: 'link', question: 'Go', link: 'http://x' }] }), 400, /https/, 'questions');
    await expectError(await send(s, 'POST', surveysPath(), { name: 'x', type: 'api', questions: [{ type: 'rating', question: 'R', scale: 4 }] }), 400, /scale/, 'questions');
    await expectError(await send(s, 'POST', surveysPath(), { name: 'x', type: 'api', questions: [{ type: 'multiple_choice', question: 'M', choices: [] }] }), 400, /choices/, 'questions');
    await expectError(await send(s, 'POST', surveysPath(), { name: 'x', type: 'api', start_date: 'soon' }), 400, /Datetime has wrong format/, 'start_date');
    await expectError(await send(s, 'POST', surveysPath(), { name: 'x', type: 'api', conditions: { linkedFlagVariant: 'test' } }), 400, /requires a linked feature flag/, 'conditions');
    await expectError(await send(s, 'POST', surveysPath(), { name: 'x', type: 'api', linked_flag_id: 999999 }), 400, /does not exist/, 'linked_flag_id');
    const branching = [{ type: 'open', question: 'Q', branching: { type: 'end' } }];
    await expectError(await send(s, 'POST', surveysPath(), { name: 'x', type: 'api', questions: branching, appearance: { shuffleQuestions: true } }), 400, /branching/, 'appearance');
    await expectError(await send(s, 'POST', surveysPath(), [1, 2]), 400);
    expect(await s.runtime.log.head()).toBe(before);
  });

  it('links a flag and checks the variant against it', async () => {
    const flagRes = await send(s, 'POST', `/api/projects/${s.credentials.project_id}/feature_flags/`, {
      key: 'survey-linked',
      filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] } },
    });
    const flag = await json(flagRes);
    expect(flagRes.status).toBe(201);
    await expectError(await send(s, 'POST', surveysPath(), { name: 'Linked', type: 'api', linked_flag_id: flag.id, conditions: { linkedFlagVariant: 'nope' } }), 400, /no variant/, 'conditions');
    const linked = await create({ name: 'Linked', type: 'api', linked_flag_id: flag.id, conditions: { linkedFlagVariant: 'test' } });
    expect(linked.linked_flag).toMatchObject({ id: flag.id, key: 'survey-linked' });
    expect(linked.feature_flag_keys).toContainEqual({ key: 'linked_flag_key', value: 'survey-linked' });
  });

  it('requires survey:read to read and survey:write to write', async () => {
    const reader = await keyWith(s, ['survey:read']);
    const other = await keyWith(s, ['feature_flag:read']);
    expect((await s.api(surveysPath(), { key: reader })).status).toBe(200);
    await expectError(await s.api(surveysPath(), { key: other }), 403);
    await expectError(await send(s, 'POST', surveysPath(), { name: 'Scoped', type: 'api' }, reader), 403);
  });
});

describe('public surveys endpoint (posthog-js getSurveys)', () => {
  it('serves every non-archived survey of the token’s project, with CORS', async () => {
    const live = await create({ ...nps, name: 'Live' });
    const archived = await create({ name: 'Old', type: 'popover', archived: true });
    const res = await publicSurveys(s.credentials.project_api_key);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    const out = await json(res);
    expect(Object.keys(out).sort()).toEqual(['survey_config', 'surveys']);
    const ids = out.surveys.map((x: { id: string }) => x.id);
    expect(ids).toContain(live.id);
    expect(ids).not.toContain(archived.id);
    const mine = out.surveys.find((x: { id: string }) => x.id === live.id);
    expect(Object.keys(mine).sort()).toEqual(
      [
        'id', 'name', 'type', 'linked_flag_key', 'targeting_flag_key', 'internal_targeting_flag_key', 'questions', 'conditions', 'appearance',
        'start_date', 'end_date', 'current_iteration', 'current_iteration_start_date', 'schedule', 'enable_partial_responses',
      ].sort(),
    );
    expect(mine.questions).toEqual(live.questions);
  });

  it('answers a preflight, and a missing or unknown token with 401 and CORS headers', async () => {
    const pre = await fetch(`${s.url}/api/surveys/`, { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } });
    expect(pre.status).toBe(200);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    const bad = await publicSurveys('phc_unknown');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect((await json(bad)).code).toBe('invalid_api_key');
    const missing = await fetch(`${s.url}/api/surveys/`, { headers: { origin: 'https://shop.example' } });
    expect(missing.status).toBe(401);
    expect((await json(missing)).code).toBe('missing_api_key');
  });
});

describe('survey responses', () => {
  it('arrive as `survey sent` events, are listed by the events API and counted per survey', async () => {
    const survey = await create({ name: 'Feedback', type: 'api', questions: [{ type: 'open', question: 'Thoughts?', id: 'q-open' }] });
    const sent = (distinctId: string, submission: string, text: string) => ({
      event: 'survey sent',
      distinct_id: distinctId,
      properties: {
        $survey_id: survey.id,
        $survey_name: 'Feedback',
        $survey_submission_id: submission,
        $survey_completed: true,
        $survey_questions: [{ id: 'q-open', question: 'Thoughts?', response: text }],
        '$survey_response_q-open': text,
        $survey_response: text,
        $set: { [`$survey_responded/${survey.id}`]: true },
      },
    });
    // Two partial submits of one response count once; a second person's response counts too.
    await ingestEvents(s, [sent('alice', 'sub-1', 'Good'), sent('alice', 'sub-1', 'Good!'), sent('bob', 'sub-2', 'Meh')]);

    const events = await json(await s.api(`/api/projects/${s.credentials.project_id}/events/?event=survey%20sent`));
    const mine = events.results.filter((e: { properties: Record<string, unknown> }) => e.properties.$survey_id === survey.id);
    expect(mine).toHaveLength(3);
    expect(mine.map((e: { properties: Record<string, unknown> }) => e.properties['$survey_response_q-open']).sort()).toEqual(['Good', 'Good!', 'Meh']);

    expect((await json(await s.api(surveysPath(`${survey.id}/`)))).responses_count).toBe(2);
    expect((await json(await s.api(surveysPath('responses_count/'))))[survey.id]).toBe(2);
    const alice = await json(await s.api(`/api/projects/${s.credentials.project_id}/persons/?distinct_id=alice`));
    expect(alice.results[0].properties[`$survey_responded/${survey.id}`]).toBe(true);
  });
});

describe('internal targeting flag', () => {
  it('is on for who has not answered or dismissed, only while the survey runs, and goes with the survey', async () => {
    const survey = await create({ name: 'Targeted', type: 'popover', questions: [{ type: 'open', question: 'Hi?' }], start_date: '2026-01-01T00:00:00Z' });
    const key = survey.internal_targeting_flag.key;
    expect(key).toMatch(/^survey-targeting-[0-9a-f]{10}-custom$/);
    expect(survey.internal_targeting_flag.active).toBe(true);
    expect(survey.feature_flag_keys).toContainEqual({ key: 'internal_targeting_flag_key', value: key });
    const listed = (await json(await publicSurveys(s.credentials.project_api_key))).surveys.find((x: { id: string }) => x.id === survey.id);
    expect(listed.internal_targeting_flag_key).toBe(key);

    await ingestEvents(s, [
      { event: 'survey sent', distinct_id: 'answered', properties: { $survey_id: survey.id, $set: { [`$survey_responded/${survey.id}`]: true } } },
      { event: 'survey dismissed', distinct_id: 'dismissed', properties: { $survey_id: survey.id, $set: { [`$survey_dismissed/${survey.id}`]: true } } },
      { event: '$pageview', distinct_id: 'fresh' },
    ]);
    const on = async (distinctId: string) => (await evaluate(s, '/flags/?v=2', { distinct_id: distinctId })).flags[key]?.enabled;
    expect(await on('fresh')).toBe(true);
    expect(await on('answered')).toBe(false);
    expect(await on('dismissed')).toBe(false);

    const ended = await json(await send(s, 'PATCH', surveysPath(`${survey.id}/`), { end_date: '2026-02-01T00:00:00Z' }));
    expect(ended.internal_targeting_flag.active).toBe(false);
    expect(await on('fresh')).not.toBe(true);

    const draft = await create({ name: 'Not started', type: 'popover' });
    expect(draft.internal_targeting_flag.active).toBe(false);

    const flagId = survey.internal_targeting_flag.id;
    expect((await send(s, 'DELETE', surveysPath(`${survey.id}/`))).status).toBe(204);
    const flag = await s.api(`/api/projects/${s.credentials.project_id}/feature_flags/${flagId}/`);
    expect(flag.status === 404 || (await json(flag)).deleted === true).toBe(true);
  });

  // posthog-js keys an answer on the iteration only when `current_iteration > 0`; a survey with
  // `iteration_count: 0` does not repeat, so its flag must read the plain key the answer set.
  it('with iteration_count 0, stays off for who answered it', async () => {
    const survey = await create({ name: 'Once', type: 'popover', start_date: '2026-01-01T00:00:00Z', iteration_count: 0 });
    const key = survey.internal_targeting_flag.key;
    await ingestEvents(s, [
      { event: 'survey sent', distinct_id: 'answered-once', properties: { $survey_id: survey.id, $set: { [`$survey_responded/${survey.id}`]: true } } },
    ]);
    const on = async (distinctId: string) => (await evaluate(s, '/flags/?v=2', { distinct_id: distinctId })).flags[key].enabled;
    expect(await on('answered-once')).toBe(false);
    expect(await on('not-answered')).toBe(true);
  });

  it('with a wait period, is off for who was shown a survey within it', async () => {
    const survey = await create({ name: 'Patient', type: 'popover', start_date: '2026-01-01T00:00:00Z', conditions: { seenSurveyWaitPeriodInDays: 7 } });
    const key = survey.internal_targeting_flag.key;
    const day = 86_400_000;
    await ingestEvents(s, [
      { event: 'survey shown', distinct_id: 'seen-recently', properties: { $set: { $survey_last_seen_date: new Date(Date.now() - day).toISOString() } } },
      { event: 'survey shown', distinct_id: 'seen-long-ago', properties: { $set: { $survey_last_seen_date: new Date(Date.now() - 30 * day).toISOString() } } },
    ]);
    const on = async (distinctId: string) => (await evaluate(s, '/flags/?v=2', { distinct_id: distinctId })).flags[key].enabled;
    expect(await on('seen-recently')).toBe(false);
    expect(await on('seen-long-ago')).toBe(true);
    expect(await on('never-seen')).toBe(true);
  });

  it('targeting_flag_filters make a user targeting flag; a PATCH merges, creates or removes it', async () => {
    const corp = { groups: [{ properties: [{ key: 'email', value: '@corp.example', operator: 'icontains', type: 'person' }], rollout_percentage: 100 }] };
    const before = await s.runtime.log.head();
    const everyone = { groups: [{ properties: [], rollout_percentage: 100 }] };
    await expectError(await send(s, 'POST', surveysPath(), { name: 'Everyone', type: 'popover', targeting_flag_filters: everyone }), 400, /rolls out to everyone/, 'targeting_flag_filters');
    await expectError(await send(s, 'POST', surveysPath(), { name: 'Bad', type: 'popover', targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 101 }] } }), 400, undefined, 'targeting_flag_filters');
    expect(await s.runtime.log.head()).toBe(before);

    const survey = await create({ name: 'Corp only', type: 'popover', start_date: '2026-01-01T00:00:00Z', targeting_flag_filters: corp });
    const key = survey.targeting_flag.key;
    expect(key).toMatch(/^survey-targeting-[0-9a-f]{10}$/);
    expect(survey.targeting_flag).toMatchObject({ active: true, filters: { groups: corp.groups } });
    const listed = (await json(await publicSurveys(s.credentials.project_api_key))).surveys.find((x: { id: string }) => x.id === survey.id);
    expect(listed.targeting_flag_key).toBe(key);
    await ingestEvents(s, [
      { event: '$identify', distinct_id: 'insider', properties: { $set: { email: 'ann@corp.example' } } },
      { event: '$identify', distinct_id: 'outsider', properties: { $set: { email: 'bob@else.example' } } },
    ]);
    const on = async (distinctId: string) => (await evaluate(s, '/flags/?v=2', { distinct_id: distinctId })).flags[key]?.enabled;
    expect(await on('insider')).toBe(true);
    expect(await on('outsider')).toBe(false);

    const removed = await json(await send(s, 'PATCH', surveysPath(`${survey.id}/`), { remove_targeting_flag: true }));
    expect(removed.targeting_flag).toBeNull();
    expect(await on('insider')).not.toBe(true);

    const again = await json(await send(s, 'PATCH', surveysPath(`${survey.id}/`), { targeting_flag_filters: corp }));
    expect(again.targeting_flag.key).toMatch(/^survey-targeting-[0-9a-f]{10}$/);
    expect(again.targeting_flag.key).not.toBe(key);
    const other = { groups: [{ properties: [{ key: 'email', value: '@else.example', operator: 'icontains', type: 'person' }], rollout_percentage: 100 }] };
    const merged = await json(await send(s, 'PATCH', surveysPath(`${survey.id}/`), { targeting_flag_filters: other }));
    expect(merged.targeting_flag.key).toBe(again.targeting_flag.key);
    expect(merged.targeting_flag.filters.groups).toEqual(other.groups);
    expect((await json(await send(s, 'PATCH', surveysPath(`${survey.id}/`), { end_date: '2026-03-01T00:00:00Z' }))).targeting_flag.active).toBe(false);
  });
});
