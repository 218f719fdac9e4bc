import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../src/ingest/json-limits';
import { startTestServer, type TestServer } from '../../support/server';
import { settle } from '../../support/posthog';
import { json } from '../../support/json';
import { tempDir } from '../../support/temp-dir';

let s: TestServer;
let token: string;
let project: string;
let exportRoot: string;
beforeAll(async () => {
  exportRoot = tempDir('export-root-');
  s = await startTestServer({ env: { EXPORT_FILE_ROOT: exportRoot } });
  token = s.credentials.project_api_key;
  project = `/api/projects/${s.credentials.project_id}`;
});
afterAll(() => s.close());

const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(`${s.url}${path}`, { method: 'POST', body, headers });
/** JSON text nested `levels` deep: {"a":{"a":...{}...}}. */
const nested = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
/** A lone high surrogate as the JSON escape a client sends. */
const LONE = '\\ud800';

async function expectUnchanged(send: () => Promise<Response>, status: number, code: string) {
  await settle(s);
  const before = await s.runtime.log.head();
  const res = await send();
  expect(res.status).toBe(status);
  const body = await json(res);
  expect(body).toMatchObject({ code });
  expect(typeof body.type).toBe('string');
  expect(body).toHaveProperty('attr');
  expect(await s.runtime.log.head()).toBe(before);
}

describe('lone UTF-16 surrogates are replaced with U+FFFD at the boundary', () => {
  it('on every ingestion body form, in values and keys, and the service stays healthy', async () => {
    const raw = (id: string) => `{"api_key":"${token}","event":"ev${LONE}","distinct_id":"${id}-a${LONE}b","properties":{"k${LONE}":"v${LONE}","n":["x${LONE}"]}}`;
    const cases: [string, () => Promise<Response>][] = [
      ['capture', () => post('/capture/', raw('capture'), { 'content-type': 'application/json' })],
      ['batch', () => post('/batch/', `{"api_key":"${token}","batch":[${raw('batch')}]}`)],
      ['form', () => post('/e/', `data=${encodeURIComponent(raw('form'))}`, { 'content-type': 'application/x-www-form-urlencoded' })],
      ['gzip', () => post('/i/v0/e/', gzipSync(raw('gzip')))],
      ['base64', () => post('/track/?compression=base64', Buffer.from(raw('base64')).toString('base64'))],
      // lz-string carries UTF-16 units: the decompressed text itself holds the lone surrogate.
      ['lz64', () => post('/engage/?compression=lz64', `data=${encodeURIComponent(LZString.compressToBase64(raw('lz64').replaceAll(LONE, '\ud800')))}`, { 'content-type': 'application/x-www-form-urlencoded' })],
    ];
    for (const [name, send] of cases) expect((await send()).status, name).toBe(200);
    await settle(s);
    expect(s.runtime.runner.failures()).toEqual({});
    for (const [name] of cases) {
      const res = await s.api(`${project}/events/?distinct_id=${encodeURIComponent(`${name}-a\uFFFDb`)}`);
      const { results } = await json(res);
      expect(results, name).toHaveLength(1);
      expect(results[0]).toMatchObject({ event: 'ev\uFFFD', distinct_id: `${name}-a\uFFFDb`, properties: { 'k\uFFFD': 'v\uFFFD', n: ['x\uFFFD'] } });
    }
    const health = await fetch(`${s.url}/_health`);
    expect(health.status).toBe(200);
    expect(await json(health)).toMatchObject({ status: 'ok' });
  });

  it('on /decide and /flags', async () => {
    for (const path of ['/decide/?v=3', '/flags/?v=2']) {
      const res = await post(path, `{"api_key":"${token}","distinct_id":"d${LONE}","person_properties":{"p${LONE}":"${LONE}"}}`);
      expect(res.status, path).toBe(200);
    }
  });

  it('on management API bodies', async () => {
    const res = await s.api(`${project}/feature_flags/`, {
      method: 'POST',
      body: `{"key":"surrogate-flag","name":"n${LONE}","filters":{"groups":[{"properties":[{"key":"email","type":"person","operator":"exact","value":"a${LONE}"}],"rollout_percentage":100}]}}`,
    });
    expect(res.status).toBe(201);
    const flag = await json(res);
    expect(flag.name).toBe('n\uFFFD');
    expect(flag.filters.groups[0].properties[0].value).toBe('a\uFFFD');
    // /flags normalises the same way: the escaped lone surrogate matches the stored U+FFFD.
    const flags = await post('/flags/?v=2', `{"api_key":"${token}","distinct_id":"d","person_properties":{"email":"a${LONE}"}}`);
    expect(flags.status).toBe(200);
    expect((await json(flags)).flags['surrogate-flag']).toMatchObject({ enabled: true });
  });
});

describe(`JSON nested past ${MAX_JSON_DEPTH} levels is refused, nothing appended`, () => {
  const deep = nested(5000);
  it('in ingestion properties and $set, on every encoding', async () => {
    const props = `{"api_key":"${token}","event":"deep","distinct_id":"deep","properties":${deep}}`;
    const set = `{"api_key":"${token}","event":"deep","distinct_id":"deep","$set":${deep}}`;
    await expectUnchanged(() => post('/capture/', props, { 'content-type': 'application/json' }), 400, 'invalid_payload');
    await expectUnchanged(() => post('/batch/', `{"api_key":"${token}","batch":[${set}]}`), 400, 'invalid_payload');
    await expectUnchanged(() => post('/e/', gzipSync(props)), 400, 'invalid_payload');
    await expectUnchanged(() => post('/e/?compression=lz64', `data=${encodeURIComponent(LZString.compressToBase64(set))}`, { 'content-type': 'application/x-www-form-urlencoded' }), 400, 'invalid_payload');
    await expectUnchanged(() => post('/decide/?v=3', `{"api_key":"${token}","distinct_id":"d","person_properties":${deep}}`), 400, 'invalid_payload');
  });

  it('accepts the limit itself', async () => {
    // The event body is one level, properties the second: the innermost object is level 64.
    const props = `{"api_key":"${token}","event":"deep-ok","distinct_id":"deep-ok","properties":${nested(MAX_JSON_DEPTH - 1)}}`;
    expect((await post('/capture/', props)).status).toBe(200);
    const over = `{"api_key":"${token}","event":"deep-ok","distinct_id":"deep-ok","properties":${nested(MAX_JSON_DEPTH)}}`;
    expect((await post('/capture/', over)).status).toBe(400);
  });

  it('in flag filters and experiment parameters on the management API', async () => {
    const flagBody = `{"key":"deep-flag","filters":{"groups":[{"properties":[],"rollout_percentage":100}],"payloads":${deep}}}`;
    await expectUnchanged(() => s.api(`${project}/feature_flags/`, { method: 'POST', body: flagBody }), 400, 'invalid_input');
    const expBody = `{"name":"deep","feature_flag_key":"deep-exp","parameters":${deep}}`;
    await expectUnchanged(() => s.api(`${project}/experiments/`, { method: 'POST', body: expBody }), 400, 'invalid_input');
    await expectUnchanged(() => s.api(`${project}/experiments/`, { method: 'POST', body: '{"name": ' }), 400, 'parse_error');
    // Still fastify's parser underneath: prototype poisoning is refused as before.
    await expectUnchanged(() => s.api(`${project}/feature_flags/`, { method: 'POST', body: '{"key":"proto","__proto__":{"x":1}}' }), 400, 'parse_error');
  });
});

describe('an empty body with a JSON content type means no body (as Django REST framework)', () => {
  it('DELETE of a flag and pause/unpause of a batch export', async () => {
    const created = await json(await s.api(`${project}/feature_flags/`, { method: 'POST', body: JSON.stringify({ key: 'to-delete', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }) }));
    const del = await s.api(`${project}/feature_flags/${created.id}/`, { method: 'DELETE', headers: { 'content-type': 'application/json' } });
    expect(del.status).toBeLessThan(300);

    const exp = await s.api(`${project}/batch_exports/`, {
      method: 'POST',
      body: JSON.stringify({ name: 'x', interval: 'hour', destination: { type: 'File', config: { path: exportRoot, file_format: 'JSONLines' } } }),
    });
    expect(exp.status).toBe(201);
    const { id } = await json(exp);
    for (const action of ['pause', 'unpause']) {
      const res = await s.api(`${project}/batch_exports/${id}/${action}/`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' } });
      expect(res.status, action).toBe(200);
    }
    const gone = await s.api(`${project}/batch_exports/${id}/`, { method: 'DELETE', headers: { 'content-type': 'application/json' } });
    expect(gone.status).toBeLessThan(300);
  });

  it('a create or update with no body is a 400 validation error, never a 500', async () => {
    const flag = await json(await s.api(`${project}/feature_flags/`, { method: 'POST', body: JSON.stringify({ key: 'patched', filters: { groups: [] } }) }));
    const cases: [string, string][] = [
      ['POST', `${project}/feature_flags/`],
      ['PATCH', `${project}/feature_flags/${flag.id}/`],
      ['POST', `${project}/experiments/`],
      ['POST', `${project}/batch_exports/`],
    ];
    for (const [method, path] of cases) {
      await settle(s);
      const before = await s.runtime.log.head();
      const res = await s.api(path, { method, headers: { 'content-type': 'application/json' } });
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(200);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
      if (res.status >= 400) expect(await json(res), path).toMatchObject({ type: 'validation_error' });
      if (method === 'POST') expect(await s.runtime.log.head(), path).toBe(before);
    }
  });
});
