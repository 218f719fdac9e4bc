import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settle } from '../../support/posthog';
import { startTestServer, type TestServer } from '../../support/server';
import { errorShapeProblem, rawRequest } from './raw-request';

// Each request here answered 500 before (issue 12, item 6): now a 400 in the error shape that
// appends nothing, or, for a malformed Host, a page whose links fall back to the listen address.
let s: TestServer;
let exportId: string;
let p: number;

beforeAll(async () => {
  s = await startTestServer({
    beforeListen: (app) =>
      app.get('/api/projects/:project_id/repeat-echo/', { config: { scope: 'project:read', repeatableQuery: ['tag'] } }, async (request) => request.query),
  });
  p = s.credentials.project_id;
  const res = await s.api(`/api/projects/${p}/batch_exports/`, {
    method: 'POST',
    body: JSON.stringify({ name: 'x', destination: { type: 'File', config: { path: `${s.dataDir}/exports/x` } }, interval: 'hour' }),
  });
  expect(res.status).toBe(201);
  exportId = ((await res.json()) as { id: string }).id;
  // Enough rows that a one-row page has both neighbours.
  for (const key of ['a', 'b', 'c'])
    expect((await s.api(`/api/projects/${p}/feature_flags/`, { method: 'POST', body: JSON.stringify({ key }) })).status).toBe(201);
});
afterAll(() => s.close());

/** Sends a request with the personal key and asserts a refused, side-effect-free 400. */
async function expect400(path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}, expected: { code: string; attr?: string | null }) {
  const before = await s.runtime.log.head();
  const res = await rawRequest(s.url, {
    method: init.method ?? 'GET',
    path,
    headers: { authorization: `Bearer ${s.credentials.personal_api_key}`, ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body,
  });
  expect(res.status, `${path}: ${res.text}`).toBe(400);
  expect(errorShapeProblem(res.text), path).toBeNull();
  const body = JSON.parse(res.text) as { code: string; attr: string | null };
  expect(body.code, path).toBe(expected.code);
  if (expected.attr !== undefined) expect(body.attr, path).toBe(expected.attr);
  expect(await s.runtime.log.head(), `${path} appended`).toBe(before);
}

describe('repeated query parameters', () => {
  it('ingestion answers invalid_payload and appends nothing', async () => {
    const batch = JSON.stringify({ api_key: s.credentials.project_api_key, batch: [{ event: 'e', distinct_id: 'd' }] });
    await expect400('/batch/?compression=gzip&compression=lz64', { method: 'POST', body: batch }, { code: 'invalid_payload', attr: null });
    await expect400('/e/?data=x&data=y', {}, { code: 'invalid_payload', attr: null });
  });

  it('the management API answers invalid_input naming the parameter', async () => {
    await expect400(`/api/projects/${p}/batch_exports/${exportId}/logs/?level=INFO&level=ERROR`, {}, { code: 'invalid_input', attr: 'level' });
    await expect400(`/api/projects/${p}/batch_exports/${exportId}/logs/?search=a&search=b`, {}, { code: 'invalid_input', attr: 'search' });
    await expect400(`/api/projects/${p}/feature_flags/?search=a&search=b`, {}, { code: 'invalid_input', attr: 'search' });
    await expect400(`/api/projects/${p}/persons/?distinct_id=a&distinct_id=b`, {}, { code: 'invalid_input', attr: 'distinct_id' });
    await expect400(`/api/projects/${p}/events/?distinct_id=a&distinct_id=b`, {}, { code: 'invalid_input', attr: 'distinct_id' });
    const token = s.credentials.project_api_key;
    await expect400(`/api/feature_flag/local_evaluation?token=${token}&token=${token}`, {}, { code: 'invalid_input', attr: 'token' });
    await expect400(`/flags/definitions?token=${token}&token=${token}`, {}, { code: 'invalid_input', attr: 'token' });
  });

  it('a route that reads a parameter as a list opts in; others stay refused there', async () => {
    const res = await s.api(`/api/projects/${p}/repeat-echo/?tag=a&tag=b&one=1`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ tag: ['a', 'b'], one: '1' });
    await expect400(`/api/projects/${p}/repeat-echo/?one=1&one=2`, {}, { code: 'invalid_input', attr: 'one' });
  });
});

describe('a non-string $ip', () => {
  it('is treated as absent: the event is stored with the request address', async () => {
    for (const [i, ip] of [5, {}, ['1.2.3.4'], true].entries()) {
      const res = await fetch(`${s.url}/capture/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: s.credentials.project_api_key, event: `ip-${i}`, distinct_id: 'ip-user', properties: { $ip: ip } }),
      });
      expect(res.status, JSON.stringify(ip)).toBe(200);
    }
    await settle(s);
    const events = (await (await s.api(`/api/projects/${p}/events/?distinct_id=ip-user`)).json()) as { results: { event: string; properties: { $ip: unknown } }[] };
    expect(events.results.map((e) => e.event).sort()).toEqual(['ip-0', 'ip-1', 'ip-2', 'ip-3']);
    for (const e of events.results) expect(e.properties.$ip).toBe('127.0.0.1');
  });
});

describe('offset and limit', () => {
  const paged = () => [
    '/api/projects/',
    `/api/projects/${p}/feature_flags/`,
    `/api/projects/${p}/persons/`,
    `/api/projects/${p}/groups/`,
    `/api/projects/${p}/events/`,
    `/api/projects/${p}/ingestion_warnings/`,
    `/api/projects/${p}/experiments/`,
    `/api/projects/${p}/cohorts/`,
    `/api/projects/${p}/batch_exports/`,
    `/api/organizations/${s.credentials.organization_id}/batch_exports/`,
    `/api/projects/${p}/batch_exports/${exportId}/logs/`,
  ];

  it('beyond 64 bits, past 2^53, in exponent form, signed or fractional: 400 on every paginated route', async () => {
    for (const path of paged())
      for (const name of ['offset', 'limit'])
        for (const value of ['99999999999999999999', '18446744073709551616', '9007199254740993', '1e3', '1E2', '-1', '1.5', '0x10', ' 1'])
          await expect400(`${path}?${name}=${encodeURIComponent(value)}`, {}, { code: 'invalid_input', attr: name });
    await expect400(`/api/projects/${p}/batch_exports/${exportId}/runs/?limit=99999999999999999999`, {}, { code: 'invalid_input', attr: 'limit' });
  });

  it('a large but exact offset is an empty page', async () => {
    for (const path of paged()) {
      const res = await s.api(`${path}?offset=9007199254740991`);
      expect(res.status, path).toBe(200);
      expect(((await res.json()) as { results: unknown[] }).results, path).toEqual([]);
    }
  });
});

describe('percent-encoding that does not decode', () => {
  it('in the query: 400 naming the parameter', async () => {
    for (const bad of ['%E0%A4%A', '%ED%A0%80', '%', '%zz', '%C0%AF'])
      await expect400(`/api/projects/${p}/feature_flags/?search=${bad}`, {}, { code: 'invalid_input', attr: 'search' });
    await expect400('/e/?data=%E0%A4%A', {}, { code: 'invalid_payload', attr: null });
  });

  it('in the path: 400 in the error shape', async () => {
    for (const bad of ['%E0%A4%A', '%ED%A0%80', '%C0%AF'])
      for (const path of [`/api/projects/${p}/feature_flags/${bad}/`, `/api/projects/${bad}/`, `/capture/${bad}`])
        await expect400(path, {}, { code: 'invalid_url', attr: null });
  });
});

/** The first page of one flag per page, with the headers given: `next` and `previous` both exist. */
async function links(server: TestServer, headers: Record<string, string>) {
  const res = await rawRequest(server.url, {
    method: 'GET',
    path: `/api/projects/${server.credentials.project_id}/feature_flags/?limit=1&offset=1`,
    headers: { authorization: `Bearer ${server.credentials.personal_api_key}`, ...headers },
  });
  expect(res.status, res.text).toBe(200);
  const body = JSON.parse(res.text) as { next: string; previous: string };
  return { next: body.next, previous: body.previous };
}

describe('links under a malformed Host', () => {
  it('fall back to the address the request arrived at', async () => {
    const listen = `${s.url}/api/projects/${p}/feature_flags/?limit=1&offset=`;
    for (const host of ['a b', '[::1', 'x:99999', 'x:', '', 'evil.example/path', 'a@b', '..', '-x'])
      expect(await links(s, { host }), host).toEqual({ next: `${listen}2`, previous: `${listen}0` });
    expect(await links(s, { host: 'api.example:8000' })).toEqual({
      next: `http://api.example:8000/api/projects/${p}/feature_flags/?limit=1&offset=2`,
      previous: `http://api.example:8000/api/projects/${p}/feature_flags/?limit=1&offset=0`,
    });
    expect((await links(s, { host: '[::1]:8000' })).next).toBe(`http://[::1]:8000/api/projects/${p}/feature_flags/?limit=1&offset=2`);
  });
});

describe('TRUST_PROXY', () => {
  const evil = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

  it('false (the default): X-Forwarded-Host and -Proto shape no link', async () => {
    expect(s.config.TRUST_PROXY).toBe('false');
    const { next } = await links(s, { host: 'api.example', ...evil });
    expect(next).toBe(`http://api.example/api/projects/${p}/feature_flags/?limit=1&offset=2`);
  });

  it('true: they shape links, and malformed ones fall back to the listen address', async () => {
    const t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    try {
      for (const key of ['a', 'b', 'c']) await t.api(`/api/projects/${t.credentials.project_id}/feature_flags/`, { method: 'POST', body: JSON.stringify({ key }) });
      const path = `/api/projects/${t.credentials.project_id}/feature_flags/?limit=1&offset=2`;
      expect((await links(t, { host: 'api.example', ...evil })).next).toBe(`https://evil.example${path}`);
      expect((await links(t, { host: 'api.example', 'x-forwarded-host': 'a, proxied.example' })).next).toBe(`http://proxied.example${path}`);
      for (const headers of [
        { 'x-forwarded-host': 'a b:x' } as Record<string, string>,
        { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'ht tp' },
        { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript' },
        { 'x-forwarded-host': '[::1' },
      ])
        expect((await links(t, { host: 'api.example', ...headers })).next, JSON.stringify(headers)).toBe(`${t.url}${path}`);
    } finally {
      await t.close();
    }
  });

  it('a list of proxies: believed from a listed address only', async () => {
    for (const [setting, believed] of [
      ['127.0.0.1', true],
      ['10.0.0.0/8, 192.168.0.0/16', false],
      ['loopback', true],
    ] as const) {
      const t = await startTestServer({ env: { TRUST_PROXY: setting } });
      try {
        for (const key of ['a', 'b']) await t.api(`/api/projects/${t.credentials.project_id}/feature_flags/`, { method: 'POST', body: JSON.stringify({ key }) });
        const { previous } = await links(t, { host: 'api.example', ...evil });
        expect(previous, setting).toBe(`${believed ? 'https://evil.example' : 'http://api.example'}/api/projects/${t.credentials.project_id}/feature_flags/?limit=1&offset=0`);
      } finally {
        await t.close();
      }
    }
  });

  it('X-Forwarded-For feeds $ip whatever TRUST_PROXY says', async () => {
    const res = await fetch(`${s.url}/capture/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7, 10.0.0.1' },
      body: JSON.stringify({ api_key: s.credentials.project_api_key, event: 'xff', distinct_id: 'xff-user' }),
    });
    expect(res.status).toBe(200);
    await settle(s);
    const events = (await (await s.api(`/api/projects/${p}/events/?distinct_id=xff-user`)).json()) as { results: { properties: { $ip: unknown } }[] };
    expect(events.results.map((e) => e.properties.$ip)).toEqual(['203.0.113.7']);
  });
});
