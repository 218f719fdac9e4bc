import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { createFlag, evaluate, ingest, postFlags } from './helpers';

// Response shapes, body forms and errors of the public flag endpoints, over real HTTP.
let s: TestServer;
const on = { groups: [{ properties: [], rollout_percentage: 100 }] };
const shapeKeys = ['on-for-all', 'off-for-all', 'variant-flag'];

beforeAll(async () => {
  s = await startTestServer();
  // A stored person, through the single-event endpoint: several tests read `stored-user`'s plan.
  const res = await fetch(`${s.url}/capture/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: s.credentials.project_api_key, event: '$identify', distinct_id: 'stored-user', properties: { $set: { plan: 'pro' } } }),
  });
  expect(res.status).toBe(200);
  // The group type must exist before a group flag can name it (ingest also settles the capture above).
  await ingest(s, [{ event: '$groupidentify', distinct_id: 'g', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { tier: 'enterprise' } } }]);
  await createFlag(s, { key: 'on-for-all', filters: { ...on, payloads: { true: { color: 'blue' } } } });
  await createFlag(s, { key: 'off-for-all', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
  await createFlag(s, {
    key: 'variant-flag',
    filters: {
      groups: [{ properties: [], rollout_percentage: 100, variant: 'test' }],
      multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
      payloads: { test: '{"v": 2}', control: '"c"' },
    },
  });
  await createFlag(s, { key: 'id-is-12345', filters: { groups: [{ properties: [{ key: 'distinct_id', value: '12345', type: 'person' }], rollout_percentage: 100 }] } });
  await createFlag(s, { key: 'plan-pro', filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }], rollout_percentage: 100 }] } });
  await createFlag(s, {
    key: 'company-tier',
    filters: {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: 'tier', value: 'enterprise', type: 'group', group_type_index: 0 }], rollout_percentage: 100 }],
    },
  });
  await createFlag(s, {
    key: 'beta-feature',
    filters: {
      groups: [{ properties: [], rollout_percentage: 0 }],
      super_groups: [{ properties: [{ key: '$feature_enrollment/beta-feature', value: ['true'], operator: 'exact', type: 'person' }], rollout_percentage: 100 }],
    },
  });
  await createFlag(s, { key: 'inactive-flag', active: false, filters: on });
});
afterAll(() => s.close());

const remoteConfig = {
  config: { enable_collect_everything: true },
  toolbarParams: {},
  isAuthenticated: false,
  // PostHog's remote config lists these two (compat §6); posthog-js then sends gzip-js.
  supportedCompression: ['gzip', 'gzip-js'],
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const shapeBody = { distinct_id: 'shape-user', flag_keys_to_evaluate: shapeKeys };
const onDetail = (id: number) => ({
  key: 'on-for-all',
  enabled: true,
  variant: null,
  reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
  metadata: { id, version: 1, description: null, payload: '{"color":"blue"}' },
});

describe('response shape per endpoint and version', () => {
  it('/decide v1 (and no v) lists the enabled keys, with the config block', async () => {
    for (const path of ['/decide/?v=1', '/decide/']) {
      const body = await evaluate(s, path, shapeBody);
      expect(body).toMatchObject(remoteConfig);
      expect(body.featureFlags).toEqual(['on-for-all', 'variant-flag']);
    }
  });

  it('/decide v2 maps enabled keys to their value', async () => {
    const body = await evaluate(s, '/decide/?v=2', shapeBody);
    expect(body).toMatchObject(remoteConfig);
    expect(body.featureFlags).toEqual({ 'on-for-all': true, 'variant-flag': 'test' });
  });

  it('/decide v3 has every value, payloads as JSON strings and both error spellings', async () => {
    const body = await evaluate(s, '/decide/?v=3', shapeBody);
    expect(body).toMatchObject(remoteConfig);
    expect(body.featureFlags).toEqual({ 'on-for-all': true, 'off-for-all': false, 'variant-flag': 'test' });
    expect(body.featureFlagPayloads).toEqual({ 'on-for-all': '{"color":"blue"}', 'variant-flag': '{"v": 2}' });
    expect(body.errorsWhileComputingFlags).toBe(false);
    expect(body.errorComputingFlags).toBe(false);
    expect(body.requestId).toMatch(UUID);
  });

  it('/decide v4 uses the detailed flags format', async () => {
    const body = await evaluate(s, '/decide/?v=4', shapeBody);
    expect(body).toMatchObject(remoteConfig);
    expect(body.featureFlags).toBeUndefined();
    expect(Object.keys(body.flags)).toEqual(shapeKeys);
    expect(body.flags['on-for-all']).toEqual(onDetail(body.flags['on-for-all'].metadata.id));
    expect(body.flags['off-for-all']).toMatchObject({ enabled: false, variant: null, reason: { code: 'out_of_rollout_bound', condition_index: 0 } });
    expect(body.flags['variant-flag']).toMatchObject({ enabled: true, variant: 'test', metadata: { payload: '{"v": 2}' } });
    expect(body.errorsWhileComputingFlags).toBe(false);
    expect(body.errorComputingFlags).toBe(false);
  });

  it('/flags without v (or v=1) answers the decide v3 shape, without the config block', async () => {
    for (const path of ['/flags/', '/flags/?v=1']) {
      const body = await evaluate(s, path, shapeBody);
      expect(Object.keys(body).sort()).toEqual(['errorComputingFlags', 'errorsWhileComputingFlags', 'featureFlagPayloads', 'featureFlags', 'requestId']);
      expect(body.featureFlags).toEqual({ 'on-for-all': true, 'off-for-all': false, 'variant-flag': 'test' });
    }
  });

  it('/flags v2 answers details only; config=true adds the remote config', async () => {
    const body = await evaluate(s, '/flags/?v=2', shapeBody);
    expect(Object.keys(body).sort()).toEqual(['errorsWhileComputingFlags', 'flags', 'requestId']);
    expect(body.flags['on-for-all']).toEqual(onDetail(body.flags['on-for-all'].metadata.id));
    const withConfig = await evaluate(s, '/flags/?v=2&config=true', shapeBody);
    expect(withConfig).toMatchObject({ ...remoteConfig, errorsWhileComputingFlags: false });
    expect(Object.keys(withConfig.flags)).toEqual(shapeKeys);
  });
});

describe('request body forms', () => {
  const payload = () => JSON.stringify({ api_key: s.credentials.project_api_key, distinct_id: '12345' });
  const send = (path: string, body: string | Buffer, headers: Record<string, string>) =>
    fetch(s.url + path, { method: 'POST', headers, body }).then(async (res) => ({ status: res.status, body: await json(res) }));
  // `id-is-12345` is on only when the distinct id was read from the decoded body.
  const expectDecoded = (r: { status: number; body: { featureFlags: Record<string, unknown> } }) => {
    expect(r.status).toBe(200);
    expect(r.body.featureFlags['id-is-12345']).toBe(true);
  };

  it('plain JSON', async () => {
    expectDecoded(await send('/decide/?v=3', payload(), { 'content-type': 'application/json' }));
  });

  it('gzip with Content-Encoding: gzip', async () => {
    expectDecoded(await send('/decide/?v=3', gzipSync(payload()), { 'content-type': 'application/json', 'content-encoding': 'gzip' }));
  });

  it('form field data= holding base64 JSON', async () => {
    const form = `data=${encodeURIComponent(Buffer.from(payload()).toString('base64'))}`;
    expectDecoded(await send('/decide/?v=3', form, { 'content-type': 'application/x-www-form-urlencoded' }));
  });

  it('lz64 with ?compression=lz64, as a form field and as the raw body', async () => {
    const lz = LZString.compressToBase64(payload());
    expectDecoded(await send('/decide/?v=3&compression=lz64', `data=${encodeURIComponent(lz)}`, { 'content-type': 'application/x-www-form-urlencoded' }));
    expectDecoded(await send('/decide/?v=3&compression=lz64', lz, { 'content-type': 'text/plain' }));
  });

  it('token instead of api_key, and a numeric distinct_id', async () => {
    const body = await evaluate(s, '/decide/?v=3', { token: s.credentials.project_api_key, distinct_id: 12345 });
    expect(body.featureFlags['id-is-12345']).toBe(true);
    const other = await evaluate(s, '/decide/?v=3', { token: s.credentials.project_api_key, distinct_id: 123456 });
    expect(other.featureFlags['id-is-12345']).toBe(false);
  });
});

describe('request errors', () => {
  const expectError = async (res: Response, status: number, code: string) => {
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(status);
    expect(body).toMatchObject({ code, type: expect.any(String), detail: expect.any(String) });
  };
  const raw = (path: string, body: string) => fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('401 missing_api_key without a key, 401 invalid_api_key for an unknown one', async () => {
    for (const path of ['/decide/?v=3', '/flags/?v=2']) {
      await expectError(await raw(path, JSON.stringify({ distinct_id: 'x' })), 401, 'missing_api_key');
      await expectError(await raw(path, JSON.stringify({ api_key: 'phc_unknown', distinct_id: 'x' })), 401, 'invalid_api_key');
    }
  });

  it('400 for malformed JSON, a missing distinct_id and wrongly typed fields', async () => {
    const key = s.credentials.project_api_key;
    const invalid = 'invalid_payload';
    await expectError(await raw('/flags/?v=2', '{"api_key": "x", "distinct_id": '), 400, invalid);
    await expectError(await raw('/flags/?v=2', JSON.stringify({ api_key: key })), 400, invalid);
    await expectError(await raw('/flags/?v=2', JSON.stringify({ api_key: key, distinct_id: 'x', person_properties: 'nope' })), 400, invalid);
    await expectError(await raw('/flags/?v=2', JSON.stringify([1, 2])), 400, invalid);
  });
});

describe('evaluation inputs', () => {
  it('disable_flags answers no flags at all', async () => {
    const v3 = await evaluate(s, '/decide/?v=3', { distinct_id: 'u', disable_flags: true });
    expect(v3.featureFlags).toEqual({});
    const v2 = await evaluate(s, '/flags/?v=2', { distinct_id: 'u', disable_flags: true });
    expect(v2.flags).toEqual({});
  });

  it('flag_keys_to_evaluate restricts the answer to those keys', async () => {
    const body = await evaluate(s, '/flags/?v=2', { distinct_id: 'u', flag_keys_to_evaluate: ['plan-pro', 'no-such-flag'] });
    expect(Object.keys(body.flags)).toEqual(['plan-pro']);
  });

  it('stored person properties are used, and request person_properties override them', async () => {
    const flag = async (body: Record<string, unknown>) => (await evaluate(s, '/flags/?v=2', body)).flags['plan-pro'].enabled;
    expect(await flag({ distinct_id: 'stored-user' })).toBe(true);
    expect(await flag({ distinct_id: 'stored-user', person_properties: { plan: 'free' } })).toBe(false);
    expect(await flag({ distinct_id: 'someone-else' })).toBe(false);
    expect(await flag({ distinct_id: 'someone-else', person_properties: { plan: 'PRO' } })).toBe(true);
  });

  it('distinct_id is a person property, and a request property of that name wins', async () => {
    const flag = async (body: Record<string, unknown>) => (await evaluate(s, '/decide/?v=3', body)).featureFlags['id-is-12345'];
    expect(await flag({ distinct_id: '12345' })).toBe(true);
    expect(await flag({ distinct_id: 'abc' })).toBe(false);
    expect(await flag({ distinct_id: 'abc', person_properties: { distinct_id: '12345' } })).toBe(true);
  });

  it('group flags bucket on the request group, read stored group properties, and say no_group_type without one', async () => {
    const detail = async (body: Record<string, unknown>) => (await evaluate(s, '/flags/?v=2', body)).flags['company-tier'];
    expect(await detail({ distinct_id: 'u', groups: { company: 'acme' } })).toMatchObject({ enabled: true, reason: { code: 'condition_match' } });
    expect(await detail({ distinct_id: 'u', groups: { company: 'unknown-co' } })).toMatchObject({ enabled: false, reason: { code: 'no_condition_match' } });
    expect(await detail({ distinct_id: 'u', groups: { company: 'unknown-co' }, group_properties: { company: { tier: 'enterprise' } } })).toMatchObject({ enabled: true });
    expect(await detail({ distinct_id: 'u', groups: { company: 'acme' }, group_properties: { company: { tier: 'free' } } })).toMatchObject({ enabled: false });
    expect(await detail({ distinct_id: 'u' })).toMatchObject({ enabled: false, variant: null, reason: { code: 'no_group_type' } });
  });

  it('super_groups early access via $feature_enrollment/<key> wins over the release conditions', async () => {
    const detail = async (props: Record<string, unknown>) => (await evaluate(s, '/flags/?v=2', { distinct_id: 'u', person_properties: props })).flags['beta-feature'];
    expect(await detail({ '$feature_enrollment/beta-feature': true })).toMatchObject({ enabled: true, reason: { code: 'super_condition_value' } });
    expect(await detail({ '$feature_enrollment/beta-feature': false })).toMatchObject({ enabled: false, reason: { code: 'super_condition_value' } });
    expect(await detail({})).toMatchObject({ enabled: false, reason: { code: 'out_of_rollout_bound' } });
  });

  it('an inactive flag is off with reason flag_disabled', async () => {
    const body = await evaluate(s, '/flags/?v=2', { distinct_id: 'u' });
    expect(body.flags['inactive-flag']).toMatchObject({ enabled: false, variant: null, reason: { code: 'flag_disabled' } });
    expect((await evaluate(s, '/decide/?v=3', { distinct_id: 'u' })).featureFlags['inactive-flag']).toBe(false);
  });

  it('variant payloads are the JSON-encoded string stored for the served variant', async () => {
    const body = await evaluate(s, '/decide/?v=3', { distinct_id: 'u' });
    expect(body.featureFlags['variant-flag']).toBe('test');
    expect(body.featureFlagPayloads['variant-flag']).toBe('{"v": 2}');
    expect(JSON.parse(body.featureFlagPayloads['on-for-all'])).toEqual({ color: 'blue' });
    expect(body.featureFlagPayloads).not.toHaveProperty('off-for-all');
  });
});

describe('bodies posted with postFlags default the key', () => {
  it('postFlags adds the project key unless given (guards the helper the other tests rely on)', async () => {
    expect((await postFlags(s, '/flags/?v=2', { distinct_id: 'u' })).status).toBe(200);
    expect((await postFlags(s, '/flags/?v=2', { api_key: 'phc_nope', distinct_id: 'u' })).status).toBe(401);
  });
});
