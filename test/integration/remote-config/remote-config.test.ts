import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const origin = 'http://127.0.0.1:1';
const config = (token = s.credentials.project_api_key) => fetch(`${s.url}/array/${token}/config`, { headers: { origin } });
const patch = (body: unknown) => s.api(`/api/projects/${s.credentials.project_id}/`, { method: 'PATCH', body: JSON.stringify(body) });
const flags = async (path: string) => {
  const res = await fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ token: s.credentials.project_api_key, distinct_id: 'u1' }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};

describe('remote config', () => {
  it('serves the default config as JSON with CORS and cache headers', async () => {
    const res = await config();
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body).toMatchObject({
      token: s.credentials.project_api_key,
      supportedCompression: ['gzip', 'gzip-js'],
      hasFeatureFlags: false,
      autocapture_opt_out: false,
      captureDeadClicks: false,
      capturePerformance: false,
      autocaptureExceptions: false,
      sessionRecording: false,
      heatmaps: false,
      surveys: false,
      defaultIdentifiedOnly: true,
      siteApps: [],
    });
  });

  it('follows PATCH /api/projects/:id/ at once, in config, config.js, /flags?config=true and /decide', async () => {
    const res = await patch({
      autocapture_opt_out: true,
      heatmaps_opt_in: true,
      capture_performance_opt_in: true,
      session_recording_opt_in: true,
      session_recording_sample_rate: 0.5,
      session_recording_linked_flag: { id: 1, key: 'rec', variant: 'on' },
    });
    expect(res.status).toBe(200);
    const project = await res.json();
    expect(project).toMatchObject({ autocapture_opt_out: true, heatmaps_opt_in: true, session_recording_sample_rate: '0.50', surveys_opt_in: false });
    expect(await (await s.api(`/api/projects/${s.credentials.project_id}/`)).json()).toMatchObject({ autocapture_opt_out: true });

    const body = await (await config()).json();
    expect(body).toMatchObject({
      autocapture_opt_out: true,
      heatmaps: true,
      capturePerformance: { network_timing: true, web_vitals: false, web_vitals_allowed_metrics: null },
      sessionRecording: { endpoint: '/s/', sampleRate: '0.5', linkedFlag: { flag: 'rec', variant: 'on' }, recorderVersion: 'v2' },
    });

    const script = await (await fetch(`${s.url}/array/${s.credentials.project_api_key}/config.js`)).text();
    const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, { config: Record<string, unknown>; siteApps: unknown[] }> } = {};
    new Function('window', script)(window);
    expect(window._POSTHOG_REMOTE_CONFIG![s.credentials.project_api_key].config).toMatchObject({ autocapture_opt_out: true, heatmaps: true });

    expect(await flags('/flags/?v=2&config=true')).toMatchObject({ autocapture_opt_out: true, heatmaps: true, flags: {} });
    expect(await flags('/flags/?v=2')).not.toHaveProperty('heatmaps');
    expect(await flags('/decide/?v=4')).toMatchObject({ autocapture_opt_out: true, supportedCompression: ['gzip', 'gzip-js'] });

    // Back off: the recording object goes, and the change is one more event on the project's stream.
    await patch({ session_recording_opt_in: false, autocapture_opt_out: false });
    expect(await (await config()).json()).toMatchObject({ sessionRecording: false, autocapture_opt_out: false });
  });

  it('hasFeatureFlags follows the active flags (cached, dropped when the flags move)', async () => {
    const flagsUrl = `/api/projects/${s.credentials.project_id}/feature_flags/`;
    const created = await s.api(flagsUrl, { method: 'POST', body: JSON.stringify({ key: 'rc-flag', active: false, filters: { groups: [{ rollout_percentage: 100 }] } }) });
    expect(created.status).toBe(201);
    expect(await (await config()).json()).toMatchObject({ hasFeatureFlags: false });
    const { id } = (await created.json()) as { id: number };
    expect((await s.api(`${flagsUrl}${id}/`, { method: 'PATCH', body: JSON.stringify({ active: true }) })).status).toBe(200);
    expect(await (await config()).json()).toMatchObject({ hasFeatureFlags: true });
    expect(await flags('/decide/?v=4')).toMatchObject({ hasFeatureFlags: true });
  });

  it('refuses bad settings with the error shape and changes nothing', async () => {
    for (const bad of [{ heatmaps_opt_in: 'yes' }, { session_recording_sample_rate: 1.5 }, { session_recording_sample_rate: '0.123' }, { unknown_setting: true }]) {
      const res = await patch(bad);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ type: 'validation_error', code: 'invalid_input' });
    }
    expect(await (await config()).json()).toMatchObject({ heatmaps: true });
  });

  it('answers an unknown token with 404 and a malformed one with 400, both with CORS', async () => {
    const unknown = await config('phc_unknownunknownunknown');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe(origin);
    expect(await unknown.json()).toMatchObject({ type: 'invalid_request', code: 'not_found' });
    const bad = await fetch(`${s.url}/array/bad$token/config.js`, { headers: { origin } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe(origin);
    expect(await bad.json()).toMatchObject({ detail: 'Invalid token' });
    // Past the router's parameter limit the router answers itself, still with CORS and the error shape.
    const long = await fetch(`${s.url}/array/${'a'.repeat(201)}/config`, { headers: { origin } });
    expect(long.status).toBeGreaterThanOrEqual(400);
    expect(long.status).toBeLessThan(500);
    expect(long.headers.get('access-control-allow-origin')).toBe(origin);
    expect(await long.json()).toHaveProperty('code');
  });

  it('array.js is the SDK followed by the config, with an ETag that revalidates', async () => {
    const url = `${s.url}/array/${s.credentials.project_api_key}/array.js`;
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('_POSTHOG_REMOTE_CONFIG');
    expect(res.headers.get('cache-tag')).toMatch(/^posthog-js-1\.449\.2, token:phc_/);
    const again = await fetch(url, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });
});

describe('CORS on public paths', () => {
  it('answers preflights for known and unknown public paths, and 404s carry CORS', async () => {
    for (const path of ['/e/', '/flags/', '/array/x/config', '/static/array.js', '/s/', '/nowhere']) {
      const res = await fetch(`${s.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), path).toBe(origin);
      expect(res.headers.get('access-control-allow-headers'), path).toBe('content-type');
    }
    const missing = await fetch(`${s.url}/i/v9/unknown/?compression=gzip-js`, { method: 'POST', headers: { origin }, body: gzipSync('[]') });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(origin);
    expect(await missing.json()).toMatchObject({ code: 'not_found' });
  });

  it('errors of public endpoints carry CORS; the management API does not', async () => {
    const bad = await fetch(`${s.url}/e/`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{' });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe(origin);
    const api = await fetch(`${s.url}/api/projects/`, { headers: { origin } });
    expect(api.status).toBe(401);
    expect(api.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('/static/: posthog-js from the installed package', () => {
  it('serves array.js and the lazy-loaded extensions with type, cache headers and ETag', async () => {
    for (const name of ['array.js', 'recorder.js', 'surveys.js', 'dead-clicks-autocapture.js', 'exception-autocapture.js', 'web-vitals.js', 'lazy-recorder.js']) {
      const res = await fetch(`${s.url}/static/${name}?v=1.449.2`, { headers: { origin } });
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type'), name).toBe('application/javascript; charset=utf-8');
      expect(res.headers.get('cache-control'), name).toMatch(/max-age=\d{5,}/);
      expect(res.headers.get('access-control-allow-origin'), name).toBe(origin);
      const etag = res.headers.get('etag')!;
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
      expect((await fetch(`${s.url}/static/${name}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    }
  });

  it('serves /static/<installed version>/<file> as immutable, and no other version', async () => {
    const res = await fetch(`${s.url}/static/1.449.2/recorder.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${s.url}/static/1.0.0/recorder.js`)).status).toBe(404);
    expect((await fetch(`${s.url}/static/1.449.2/nope.js`)).status).toBe(404);
  });

  it('serves nothing outside the dist listing', async () => {
    for (const path of ['/static/..%2Fpackage.json', '/static/%2E%2E%2Fpackage.json', '/static/../package.json', '/static/src', '/static/array.d.ts', '/static/nope.js', '/static/src/index.js', '/static/1.449.2/..%2Fpackage.json']) {
      const res = await fetch(`${s.url}${path}`);
      expect(res.status, path).toBe(404);
    }
  });
});
