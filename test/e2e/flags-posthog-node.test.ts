import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type Json } from '../support/json';
import { posthogClient, settle } from '../support/posthog';
import { startTestServer, type TestServer } from '../support/server';
import { createFlag, evaluate, inParallel, ingest } from '../integration/flags/helpers';

// The official posthog-node SDK against the server: remote evaluation must agree with the server's
// own /flags answer, and local evaluation (definitions polled with a personal key) must agree too.
let s: TestServer;
/** Flag requests the SDK made (its User-Agent), split by remote evaluation and definition polls. */
const sdkCalls = { remote: 0, definitions: 0 };

const variants = (...list: [string, number][]) => ({ variants: list.map(([key, rollout_percentage]) => ({ key, rollout_percentage })) });
const FLAGS: Record<string, unknown>[] = [
  { key: 'rollout-30', filters: { groups: [{ properties: [], rollout_percentage: 30 }], payloads: { true: { r: 30 } } } },
  {
    key: 'mv-flag',
    filters: { groups: [{ properties: [], rollout_percentage: 80 }], multivariate: variants(['control', 34], ['test', 33], ['other', 33]), payloads: { control: '"c"', test: { t: 1 } } },
  },
  {
    key: 'pro-plan',
    filters: { groups: [{ properties: [{ key: 'plan', value: ['pro', 'enterprise'], operator: 'exact', type: 'person' }], rollout_percentage: 100 }], payloads: { true: { discount: 10 } } },
  },
  {
    key: 'power-users',
    filters: {
      groups: [
        { properties: [{ key: 'seats', value: '10', operator: 'gt', type: 'person' }], rollout_percentage: 60 },
        { properties: [{ key: 'email', value: '@ACME.com', operator: 'icontains', type: 'person' }], rollout_percentage: 100, variant: 'acme' },
      ],
      multivariate: variants(['acme', 50], ['rest', 50]),
    },
  },
  { key: 'not-free', filters: { groups: [{ properties: [{ key: 'plan', value: 'free', operator: 'is_not', type: 'person' }], rollout_percentage: 50 }] } },
  {
    key: 'company-flag',
    filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'size', value: 100, operator: 'gte', type: 'group', group_type_index: 0 }], rollout_percentage: 70 }] },
  },
  { key: 'inactive-flag', active: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
];
const KEYS = FLAGS.map((f) => f.key as string);

const user = (i: number) => ({
  distinctId: `sdk-user-${i}`,
  personProperties: { plan: ['free', 'pro', 'enterprise'][i % 3], email: i % 4 === 0 ? `u${i}@acme.com` : `u${i}@other.org`, seats: i % 25 },
  groups: { company: `co-${i % 10}` },
  groupProperties: { company: { size: (i % 10) * 30 } },
});
type User = ReturnType<typeof user>;

beforeAll(async () => {
  s = await startTestServer({
    // Counted on the HTTP server itself: posthog-node's /flags/?v=2 is answered ahead of the router.
    beforeListen: (app) =>
      app.server.on('request', (request: IncomingMessage) => {
        if (!String(request.headers['user-agent'] ?? '').includes('posthog-node')) return;
        const url = request.url ?? '';
        if (url.startsWith('/flags/definitions')) sdkCalls.definitions++;
        else if (url.startsWith('/flags')) sdkCalls.remote++;
      }),
  });
  await ingest(s, [{ event: '$groupidentify', distinct_id: 'setup', properties: { $group_type: 'company', $group_key: 'co-0' } }]);
  for (const flag of FLAGS) await createFlag(s, flag);
});
afterAll(() => s.close());

/** The server's own answer for a user, as /flags/?v=2 gives it (the SDK sends the same fields). */
async function serverAnswer(u: User): Promise<Record<string, Json>> {
  const body = await evaluate(s, '/flags/?v=2', {
    token: s.credentials.project_api_key,
    distinct_id: u.distinctId,
    person_properties: u.personProperties,
    groups: u.groups,
    group_properties: u.groupProperties,
  });
  expect(body.errorsWhileComputingFlags).toBe(false);
  return body.flags;
}
const valueOf = (detail: Json) => (detail.enabled ? (detail.variant ?? true) : false);
const payloadOf = (detail: Json) => (detail.metadata.payload === null ? null : JSON.parse(detail.metadata.payload));

describe('posthog-node remote evaluation (no personal key)', () => {
  it('getFeatureFlag, getFeatureFlagPayload, getAllFlags and isFeatureEnabled agree with /flags/?v=2', async () => {
    const client = posthogClient(s);
    const before = sdkCalls.remote;
    let seen = 0;
    for (let i = 0; i < 12; i++) {
      const u = user(i);
      const expected = await serverAnswer(u);
      const opts = { personProperties: u.personProperties, groups: u.groups, groupProperties: u.groupProperties };
      const all = await client.getAllFlags(u.distinctId, opts);
      expect(all).toEqual(Object.fromEntries(KEYS.map((k) => [k, valueOf(expected[k])])));
      for (const key of KEYS) {
        expect(await client.getFeatureFlag(key, u.distinctId, opts), key).toEqual(valueOf(expected[key]));
        expect(await client.isFeatureEnabled(key, u.distinctId, opts), key).toBe(expected[key].enabled);
        expect((await client.getFeatureFlagPayload(key, u.distinctId, undefined, opts)) ?? null, key).toEqual(payloadOf(expected[key]));
        if (expected[key].enabled) seen++;
      }
    }
    // The SDK really asked the server (no local definitions without a personal key).
    expect(sdkCalls.remote - before).toBeGreaterThanOrEqual(12 * (1 + 3 * KEYS.length));
    expect(sdkCalls.definitions).toBe(0);
    expect(seen).toBeGreaterThan(12); // the mix exercises on values, not just "everything off"
    await client.shutdown();
  });
});

describe('posthog-node local evaluation (personal key)', () => {
  it('evaluates 1000 users locally, exactly as /flags/?v=2 answers them', async () => {
    const client = posthogClient(s, { personalApiKey: s.credentials.personal_api_key });
    const users = Array.from({ length: 1000 }, (_, i) => user(i));
    const remoteBefore = sdkCalls.remote;
    const local = await inParallel(users, 8, (u) =>
      client.getAllFlags(u.distinctId, { personProperties: u.personProperties, groups: u.groups, groupProperties: u.groupProperties, onlyEvaluateLocally: true }),
    );
    expect(sdkCalls.definitions).toBeGreaterThanOrEqual(1);
    expect(sdkCalls.remote).toBe(remoteBefore);
    const server = await inParallel(users, 8, serverAnswer);
    const mismatches = users.flatMap((u, i) =>
      KEYS.filter((k) => local[i][k] !== valueOf(server[i][k])).map((k) => `${u.distinctId} ${k}: local ${local[i][k]} server ${valueOf(server[i][k])}`),
    );
    expect(mismatches).toEqual([]);
    // Every flag takes both values somewhere in the population (inactive one aside).
    for (const key of KEYS.filter((k) => k !== 'inactive-flag')) {
      const values = new Set(local.map((l) => String(l[key])));
      expect(values.size, key).toBeGreaterThan(1);
    }
    // Single-flag calls and payloads locally too; these also queue $feature_flag_called events.
    for (const u of users.slice(0, 10)) {
      const opts = { personProperties: u.personProperties, groups: u.groups, groupProperties: u.groupProperties, onlyEvaluateLocally: true };
      const expected = await serverAnswer(u);
      for (const key of ['mv-flag', 'pro-plan', 'rollout-30']) {
        expect(await client.getFeatureFlag(key, u.distinctId, opts)).toEqual(valueOf(expected[key]));
        expect((await client.getFeatureFlagPayload(key, u.distinctId, undefined, opts)) ?? null).toEqual(payloadOf(expected[key]));
      }
    }
    expect(sdkCalls.remote).toBe(remoteBefore);
    await client.shutdown();
  });
});

describe('$feature_flag_called events', () => {
  it('are sent by the SDK and ingested with the flag and the served value', async () => {
    const client = posthogClient(s);
    const distinctId = 'flag-caller';
    const u = { ...user(1), distinctId };
    const opts = { personProperties: u.personProperties, groups: u.groups, groupProperties: u.groupProperties };
    const expected = await serverAnswer(u);
    for (const key of ['mv-flag', 'pro-plan']) await client.getFeatureFlag(key, distinctId, opts);
    await client.shutdown();
    await settle(s);
    const res = await s.api(`/api/projects/${s.credentials.project_id}/events/?event=$feature_flag_called&distinct_id=${distinctId}`);
    expect(res.status).toBe(200);
    const events: Json[] = (await json(res)).results;
    const byFlag = Object.fromEntries(events.map((e) => [e.properties.$feature_flag, e.properties.$feature_flag_response]));
    expect(byFlag).toEqual({ 'mv-flag': valueOf(expected['mv-flag']), 'pro-plan': valueOf(expected['pro-plan']) });
    expect(events.every((e) => e.event === '$feature_flag_called' && e.properties.$lib === 'posthog-node')).toBe(true);

    // The earlier SDK runs sent theirs too (remote and local clients alike).
    const all = await s.api(`/api/projects/${s.credentials.project_id}/events/?event=$feature_flag_called&limit=1000`);
    const ids = new Set((await json(all)).results.map((e: Json) => e.distinct_id));
    expect(ids.has('sdk-user-0')).toBe(true);
    expect(ids.has('sdk-user-9')).toBe(true);
  });
});
