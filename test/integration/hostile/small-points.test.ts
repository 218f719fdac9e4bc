import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settle } from '../../support/posthog';
import { startTestServer, type TestServer } from '../../support/server';
import { errorShapeProblem, rawRequest } from './raw-request';
import { optInToRecordings } from '../recordings/snapshots';

// Issue 21, "also seen": prototype-named group types, NUL in names, non-finite distinct ids, and
// unbounded id-like fields, each accepted from a request before.
let s: TestServer;
let p: number;
let key: string;

beforeAll(async () => {
  s = await startTestServer();
  p = s.credentials.project_id;
  key = s.credentials.project_api_key;
});
afterAll(() => s.close());

/** A raw JSON body: `__proto__` and `1e309` must reach the server as written, which JSON.stringify cannot do. */
const post = (path: string, json: string) => rawRequest(s.url, { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: json });

async function groupTypes(): Promise<string[]> {
  await settle(s);
  const res = await s.api(`/api/projects/${p}/groups_types/`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { group_type: string }[]).map((g) => g.group_type);
}

async function warnings(): Promise<{ type: string; details: Record<string, unknown> }[]> {
  await settle(s);
  const res = await s.api(`/api/projects/${p}/ingestion_warnings/?limit=100`);
  return ((await res.json()) as { results: { type: string; details: Record<string, unknown> }[] }).results;
}

describe('group types named like Object.prototype members', () => {
  // First: the case below would otherwise have filled the five slots before the fix.
  it('a group key past 400 characters is dropped with its group', async () => {
    const res = await post('/batch/', JSON.stringify({ api_key: key, batch: [{ event: 'long-key', distinct_id: 'g2', properties: { $groups: { project: 'k'.repeat(401) } } }] }));
    expect(res.status, res.text).toBe(200);
    expect(await groupTypes()).not.toContain('project');
  });

  it('are dropped from $groups and $groupidentify; the event is kept and no slot is used', async () => {
    const proto = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
    const groups = `{${proto.map((t) => `"${t}": "k"`).join(', ')}, "company": "acme"}`;
    const batch = [
      `{"event": "with-groups", "distinct_id": "g1", "properties": {"$groups": ${groups}}}`,
      ...proto.map((t) => `{"event": "$groupidentify", "distinct_id": "g1", "properties": {"$group_type": "${t}", "$group_key": "k", "$group_set": {"a": 1}}}`),
    ];
    const res = await post('/batch/', `{"api_key": "${key}", "batch": [${batch.join(', ')}]}`);
    expect(res.status, res.text).toBe(200);
    // Only the real type took a slot: the other four are still free.
    expect(await groupTypes()).toEqual(['company']);
    await settle(s);
    const events = (await (await s.api(`/api/projects/${p}/events/?event=with-groups`)).json()) as { results: unknown[] };
    expect(events.results).toHaveLength(1);
    expect((await warnings()).some((w) => w.type === 'invalid_group')).toBe(true);
  });
});

describe('NUL in names', () => {
  const nul = 'bad\u0000name';
  const cases: [string, () => string, () => Record<string, unknown>, string][] = [
    ['survey', () => `/api/projects/${p}/surveys/`, () => ({ name: nul, type: 'popover', questions: [{ type: 'open', question: 'Why?' }] }), 'null_characters_not_allowed'],
    ['experiment', () => `/api/projects/${p}/experiments/`, () => ({ name: nul, feature_flag_key: 'exp-nul' }), 'null_characters_not_allowed'],
    ['early access feature', () => `/api/projects/${p}/early_access_feature/`, () => ({ name: nul, stage: 'beta' }), 'null_characters_not_allowed'],
    ['feature flag', () => `/api/projects/${p}/feature_flags/`, () => ({ key: 'nul-flag', name: nul }), 'null_characters_not_allowed'],
    [
      'batch export',
      () => `/api/projects/${p}/batch_exports/`,
      () => ({ name: nul, destination: { type: 'File', config: { path: `${s.dataDir}/exports/nul` } }, interval: 'hour' }),
      'invalid_input',
    ],
  ];
  it.each(cases)('%s: a name with a NUL answers 400 naming the attribute', async (_what, path, body, code) => {
    const before = await s.runtime.log.head();
    const res = await s.api(path(), { method: 'POST', body: JSON.stringify(body()) });
    const text = await res.text();
    expect(res.status, text).toBe(400);
    expect(errorShapeProblem(text)).toBeNull();
    expect(JSON.parse(text)).toMatchObject({ attr: 'name', code });
    expect(await s.runtime.log.head()).toBe(before);
  });

  it('a survey description with a NUL is refused too (every text field, as Django REST framework does)', async () => {
    const res = await s.api(`/api/projects/${p}/surveys/`, {
      method: 'POST',
      body: JSON.stringify({ name: 'ok', description: 'a\u0000b', type: 'popover', questions: [{ type: 'open', question: 'Why?' }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ attr: 'description', code: 'null_characters_not_allowed' });
  });
});

describe('non-finite numbers are never ids', () => {
  it('ingestion: an event with distinct_id 1e309 is not stored (warning), the rest of the batch is', async () => {
    const res = await post('/batch/', `{"api_key": "${key}", "batch": [{"event": "inf", "distinct_id": 1e309}, {"event": "inf", "distinct_id": "finite"}, {"event": "$identify", "distinct_id": "finite", "properties": {"$anon_distinct_id": -1e309}}]}`);
    expect(res.status, res.text).toBe(200);
    await settle(s);
    const events = (await (await s.api(`/api/projects/${p}/events/?event=inf`)).json()) as { results: { distinct_id: string }[] };
    expect(events.results.map((e) => e.distinct_id)).toEqual(['finite']);
    expect((await warnings()).some((w) => w.type === 'invalid_distinct_id')).toBe(true);
    const persons = (await (await s.api(`/api/projects/${p}/persons/?distinct_id=-Infinity`)).json()) as { results: unknown[] };
    expect(persons.results).toHaveLength(0);
  });

  it('/flags/ answers 400', async () => {
    const res = await post('/flags/?v=2', `{"api_key": "${key}", "distinct_id": 1e309}`);
    expect(res.status, res.text).toBe(400);
    expect(errorShapeProblem(res.text)).toBeNull();
  });

  it('/s/ answers 400', async () => {
    // Off by default, /s/ would answer {status:1} before reading a line.
    await optInToRecordings(s);
    const res = await post(
      '/s/',
      `{"api_key": "${key}", "batch": [{"event": "$snapshot", "distinct_id": 1e309, "properties": {"$session_id": "s1", "$window_id": "w1", "$snapshot_data": [{"type": 4, "data": {}, "timestamp": 1}]}}]}`,
    );
    expect(res.status, res.text).toBe(400);
    expect(errorShapeProblem(res.text)).toBeNull();
  });
});

describe('bounded id-like fields', () => {
  it('a distinct id is cut to 200 characters, as PostHog capture does', async () => {
    const res = await post('/batch/', JSON.stringify({ api_key: key, batch: [{ event: 'long-id', distinct_id: 'x'.repeat(5_000) }] }));
    expect(res.status).toBe(200);
    await settle(s);
    const events = (await (await s.api(`/api/projects/${p}/events/?event=long-id`)).json()) as { results: { distinct_id: string }[] };
    expect(events.results[0].distinct_id).toHaveLength(200);
  });
});
