import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { eventually } from '../../support/eventually';
import { createFlag } from '../flags/helpers';

/**
 * posthog-node's `POST /flags/?v=2` is answered ahead of fastify's router (flags-lane.ts). Every
 * request here goes once over real HTTP (the lane, for the plain form) and once through `inject`
 * (fastify's route, which the lane must equal): same status, same body but for the request id,
 * same content type and CORS headers. A hook counts what reaches the router, so a lane that
 * stopped taking the plain form fails too.
 */
let s: TestServer;
let routed = 0;
beforeAll(async () => {
  s = await startTestServer({
    beforeListen: (app) =>
      app.addHook('onRequest', (_request, _reply, done) => {
        routed++;
        done();
      }),
  });
  await createFlag(s, { key: 'on', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await createFlag(s, {
    key: 'split',
    filters: {
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
      payloads: { a: '{"x":1}' },
    },
  });
  await eventually(
    () => raw('/flags/?v=2', JSON.stringify({ token: s.credentials.project_api_key, distinct_id: 'warm' })),
    (r) => r.body.includes('"split"'),
  );
});
afterAll(() => s.close());

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

/** One request over a real socket, with exactly these headers (a declared length unless chunked). */
function raw(path: string, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }, chunked = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${s.url}${path}`, { method: 'POST', headers: chunked ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: pick(res.headers), body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (chunked) req.write(body);
    req.end(chunked ? undefined : body);
  });
}

async function viaRouter(path: string, body: string | Buffer, headers: Record<string, string>): Promise<Answer> {
  const res = await s.app.inject({ method: 'POST', url: path, headers, payload: body });
  return { status: res.statusCode, headers: pick(res.headers), body: res.body };
}

const pick = (h: Record<string, string | string[] | number | undefined>) => {
  const out: Record<string, string | undefined> = {};
  for (const name of ['content-type', 'access-control-allow-origin', 'access-control-allow-credentials', 'vary', 'retry-after']) out[name] = h[name] === undefined ? undefined : String(h[name]);
  return out;
};
const withoutRequestId = (body: string) => body.replace(/"requestId":"[0-9a-f-]+"/, '"requestId":"-"');

const key = () => s.credentials.project_api_key;
const json = { 'content-type': 'application/json' };
const cases: [string, () => { body: string | Buffer; headers?: Record<string, string> }][] = [
  ['a known user', () => ({ body: JSON.stringify({ token: key(), distinct_id: 'user-1' }) })],
  ['with groups and person properties', () => ({ body: JSON.stringify({ api_key: key(), distinct_id: 'user-2', groups: { company: 'c' }, person_properties: { plan: 'pro' } }) })],
  ['flags disabled', () => ({ body: JSON.stringify({ token: key(), distinct_id: 'user-3', disable_flags: true }) })],
  ['from a browser origin', () => ({ body: JSON.stringify({ token: key(), distinct_id: 'user-4' }), headers: { ...json, origin: 'https://shop.example' } })],
  ['as text/plain', () => ({ body: JSON.stringify({ token: key(), distinct_id: 'user-5' }), headers: { 'content-type': 'text/plain' } })],
  ['an unknown key', () => ({ body: JSON.stringify({ token: 'phc_nope', distinct_id: 'user-6' }) })],
  ['no key', () => ({ body: JSON.stringify({ distinct_id: 'user-7' }) })],
  ['no distinct id', () => ({ body: JSON.stringify({ token: key() }) })],
  ['broken JSON', () => ({ body: '{"token": ' })],
  ['an empty body', () => ({ body: '' })],
  ['a wrong type', () => ({ body: JSON.stringify({ token: key(), distinct_id: 'u', groups: 'x' }) })],
];

describe('POST /flags/?v=2 ahead of the router', () => {
  it.each(cases)('%s: the lane answers it, exactly as the route does', async (_name, make) => {
    const { body, headers = json } = make();
    const before = routed;
    const lane = await raw('/flags/?v=2', body, headers);
    expect(routed, 'the plain form reached the router').toBe(before);
    const route = await viaRouter('/flags/?v=2', body, headers);
    expect(lane.status).toBe(route.status);
    expect(lane.headers).toEqual(route.headers);
    expect(withoutRequestId(lane.body)).toBe(withoutRequestId(route.body));
  });

  it('answers the flags with their variants and payloads', async () => {
    const lane = await raw('/flags/?v=2', JSON.stringify({ token: key(), distinct_id: 'user-1' }));
    const body = JSON.parse(lane.body) as { flags: Record<string, { enabled: boolean; variant: string | null; metadata: { payload?: string } }> };
    expect(body.flags.on.enabled).toBe(true);
    expect(['a', 'b']).toContain(body.flags.split.variant);
  });

  it.each([
    ['another query', '/flags/?v=2&config=true', JSON.stringify({ token: 'x', distinct_id: 'u' }), json, false],
    ['gzip', '/flags/?v=2', gzipSync(JSON.stringify({ token: 'x', distinct_id: 'u' })), { ...json, 'content-encoding': 'gzip' }, false],
    ['a chunked body', '/flags/?v=2', JSON.stringify({ token: 'x', distinct_id: 'u' }), json, true],
    ['a body past 64 KiB', '/flags/?v=2', JSON.stringify({ token: 'x', distinct_id: 'u', person_properties: { big: 'x'.repeat(70_000) } }), json, false],
  ] as const)('%s goes to the router', async (_name, path, body, headers, chunked) => {
    const before = routed;
    const answer = await raw(path, body, headers, chunked);
    expect(routed).toBe(before + 1);
    expect(answer.status).toBe(401);
  });
});
