import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { startTestServer, type TestServer } from '../../support/server';
import type { Json } from '../../support/json';
import { settle } from '../../support/posthog';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from './chromium';
import { startPageServer, type PageServer } from './page-server';
import { npmPage, snippetPage, type InitOptions } from './pages';

/**
 * What posthog-js does besides capturing: identify and group, flags with payloads across a reload,
 * surveys, early access enrollment and session recording, each checked through the service's API.
 */

const moduleBuild = readFileSync(createRequire(import.meta.url).resolve('posthog-js/dist/module.mjs'));

/** The posthog-js calls the pages make, typed once. */
interface PostHogJs {
  get_distinct_id(): string;
  get_session_id(): string;
  identify(id: string, set?: object): void;
  group(type: string, key: string, props?: object): void;
  capture(event: string, props?: object, options?: object): void;
  getFeatureFlag(key: string): unknown;
  getFeatureFlagPayload(key: string): unknown;
  isFeatureEnabled(key: string): boolean | undefined;
  onFeatureFlags(cb: (flags: string[], variants: Record<string, unknown>) => void): void;
  reloadFeatureFlags(): void;
  resetPersonPropertiesForFlags(): void;
  getSurveys(cb: (surveys: { id: string; name: string }[]) => void, forceReload?: boolean): void;
  getEarlyAccessFeatures(cb: (features: { name: string; flagKey: string | null; stage: string }[]) => void, forceReload?: boolean): void;
  updateEarlyAccessFeatureEnrollment(key: string, enrolled: boolean): void;
  sessionRecordingStarted(): boolean;
}
declare const posthog: PostHogJs;


let s: TestServer;
let site: PageServer;
let browser: Browser;
const project = () => `/api/projects/${s.credentials.project_id}`;

async function api(path: string, init?: { method: string; body: unknown }): Promise<Json> {
  const res = await s.api(project() + path, init && { method: init.method, body: JSON.stringify(init.body) });
  const body = await res.text();
  expect(res.status, body).toBeLessThan(300);
  return body === '' ? {} : (JSON.parse(body) as Json);
}

/** Polls the service until `read` gives a value `done` accepts (short, growing back-off), failing after `timeoutMs`. */
async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 25; ; wait = Math.min(wait * 2, 250)) {
    await settle(s);
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** One page on the site's origin, with everything it logs and requests recorded (as in posthog-js.test.ts). */
async function open(path: string) {
  const context = await browser.newContext();
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: Request[] = [];
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  page.on('pageerror', (e) => errors.push(e.message));
  // A reload cancels the old document's requests still in flight or sent while it unloads (a
  // recorder flush, `$pageleave`): the browser's doing, not an error; anything else failing is one.
  const unloaded = new Set<Request>();
  let unloading = false;
  page.on('request', (r) => void (unloading && unloaded.add(r)));
  page.on('framenavigated', (f) => void (f === page.mainFrame() && (unloading = false)));
  page.on('requestfailed', (r) => {
    const reason = r.failure()?.errorText;
    if (!(reason === 'net::ERR_ABORTED' && unloaded.has(r))) errors.push(`${r.url()}: ${reason}`);
  });
  page.on('response', (r) => void (r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`)));
  page.on('request', (r) => void (r.url().startsWith(s.url) && requests.push(r)));
  await page.goto(site.url + path);
  await loaded(page);
  const reload = async () => {
    for (const r of requests) unloaded.add(r);
    unloading = true;
    await page.reload();
    await loaded(page);
  };
  return { page, errors, requests, reload, close: () => context.close() };
}

const loaded = (page: Page) => page.waitForFunction(() => (globalThis as unknown as { __posthogLoaded?: boolean }).__posthogLoaded === true);

/** Resolves with the flags posthog-js reports once it has them (from `/flags` or persistence). */
const flagsInPage = (page: Page, keys: string[]) =>
  page.evaluate(
    (keys) =>
      new Promise<Record<string, { value: unknown; payload: unknown }>>((resolve) =>
        posthog.onFeatureFlags(() => resolve(Object.fromEntries(keys.map((k) => [k, { value: posthog.getFeatureFlag(k), payload: posthog.getFeatureFlagPayload(k) }])))),
      ),
    keys,
  );

const person = (distinctId: string) => api(`/persons/?distinct_id=${encodeURIComponent(distinctId)}`).then((r) => r.results[0] as Json | undefined);

const available = chromiumAvailable();

describe.skipIf(!available)('posthog-js features in Chromium, from another origin', () => {
  beforeAll(async () => {
    s = await startTestServer();
    // Before any page loads: remote config then tells the SDK to record and to load surveys.
    await api('/', { method: 'PATCH', body: { session_recording_opt_in: true, surveys_opt_in: true } });
    // Every call is sent at once, so the API can be polled right after it.
    const init: InitOptions = { apiHost: s.url, token: s.credentials.project_api_key, extra: 'request_batching: false,' };
    site = await startPageServer({
      '/snippet.html': { type: 'text/html', body: snippetPage(init) },
      '/npm.html': { type: 'text/html', body: npmPage(init, '/assets/posthog-js.mjs') },
      '/assets/posthog-js.mjs': { type: 'text/javascript', body: moduleBuild },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await s?.close();
  });

  it('identify and group: the person and the group are visible through the API', async () => {
    const { page, errors, close } = await open('/npm.html');
    try {
      const anonymous = await page.evaluate(() => posthog.get_distinct_id());
      await page.evaluate(() => {
        posthog.identify('user-ada', { email: 'ada@example.com' });
        posthog.group('company', 'acme', { name: 'Acme Inc' });
      });
      const p = await until('the identified person', () => person('user-ada'), (p) => p?.properties?.email === 'ada@example.com');
      // The anonymous id was merged into the identified person.
      expect(p!.distinct_ids).toEqual(expect.arrayContaining(['user-ada', anonymous]));
      const types = await until('the group type', () => api('/groups_types/'), (t) => JSON.stringify(t).includes('"company"'));
      const index = (types as unknown as { group_type: string; group_type_index: number }[]).find((t) => t.group_type === 'company')!.group_type_index;
      const group = await until(
        'the group',
        () => api(`/groups/?group_type_index=${index}&group_key=acme`),
        (g) => g.results?.[0]?.group_properties?.name === 'Acme Inc',
      );
      expect(group.results[0].group_key).toBe('acme');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('flags and payloads from the API reach the page, and are still right after a reload', async () => {
    await api('/feature_flags/', { method: 'POST', body: { key: 'pay-flag', filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: { plan: 'gold' } } } } });
    await api('/feature_flags/', {
      method: 'POST',
      body: {
        key: 'colour',
        filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: 'blue', rollout_percentage: 100 }] }, payloads: { blue: '"#00f"' } },
      },
    });
    const { page, errors, reload, close } = await open('/snippet.html');
    try {
      const expected = { 'pay-flag': { value: true, payload: { plan: 'gold' } }, colour: { value: 'blue', payload: '#00f' }, absent: { value: undefined, payload: undefined } };
      expect(await flagsInPage(page, Object.keys(expected))).toEqual(expected);
      // Read again once the reloaded page has asked /flags itself, not only from its persistence.
      const refetched = page.waitForResponse((r) => new URL(r.url()).pathname === '/flags/');
      await reload();
      expect((await refetched).status()).toBe(200);
      expect(await flagsInPage(page, Object.keys(expected))).toEqual(expected);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('getSurveys returns a survey created through the API, and a response sent from the page is stored', async () => {
    const survey = await api('/surveys/', {
      method: 'POST',
      body: { name: 'Browser NPS', type: 'api', questions: [{ type: 'open', question: 'What do you think?' }], start_date: '2026-01-01T00:00:00Z' },
    });
    const { page, errors, close } = await open('/npm.html');
    try {
      const listed = await page.evaluate(() => new Promise<{ id: string; name: string }[]>((resolve) => posthog.getSurveys(resolve, true)));
      expect(listed.map((x) => [x.id, x.name])).toContainEqual([survey.id, 'Browser NPS']);
      const distinctId = await page.evaluate(() => posthog.get_distinct_id());
      await page.evaluate((id) => posthog.capture('survey sent', { $survey_id: id, $survey_response: 'Lovely' }, { send_instantly: true }), survey.id as string);
      const stored = await until(
        'the survey response',
        () => api(`/events/?event=survey%20sent&distinct_id=${encodeURIComponent(distinctId)}`),
        (r) => r.results?.length > 0,
      );
      expect(stored.results[0].properties).toMatchObject({ $survey_id: survey.id, $survey_response: 'Lovely' });
      const counted = await until('the response count', () => api(`/surveys/${survey.id}/`), (x) => x.responses_count === 1);
      expect(counted.responses_count).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("early access: the beta feature is listed, and enrolling flips its flag for that person on the service's side", async () => {
    const feature = await api('/early_access_feature/', { method: 'POST', body: { name: 'Beta Thing', stage: 'beta', description: 'Try it' } });
    const key = feature.feature_flag.key as string;
    const { page, errors, close } = await open('/npm.html');
    try {
      const listed = await page.evaluate(() => new Promise<{ name: string; flagKey: string | null; stage: string }[]>((resolve) => posthog.getEarlyAccessFeatures(resolve, true)));
      expect(listed).toContainEqual(expect.objectContaining({ name: 'Beta Thing', flagKey: key, stage: 'beta' }));
      // With posthog-js's default `person_profiles: 'identified_only'` an anonymous visitor's `$set` is
      // not processed (`$process_person_profile: false`), so enrollment is stored for identified users.
      const distinctId = 'user-early';
      await page.evaluate((id) => posthog.identify(id), distinctId);
      await until('the identified person', () => person(distinctId), (p) => p !== undefined);
      const served = async () => {
        const res = await fetch(`${s.url}/flags/?v=2`, { method: 'POST', body: JSON.stringify({ api_key: s.credentials.project_api_key, distinct_id: distinctId }) });
        return ((await res.json()) as Json).flags?.[key]?.enabled as boolean | undefined;
      };
      expect(await served()).toBe(false);

      await page.evaluate((key) => posthog.updateEarlyAccessFeatureEnrollment(key, true), key);
      await until('the enrollment on the person', () => person(distinctId), (p) => p?.properties?.[`$feature_enrollment/${key}`] === true);
      // Asked without the page's local overrides: the stored person alone turns the flag on.
      expect(await served()).toBe(true);
      // The page sets the flag locally at once; its own /flags request, without the local person
      // properties, must get the same answer from the service. A /flags request the enrollment itself
      // set off (carrying the property) may still be in flight: wait for one without it.
      const bodyOf = (sent: Buffer) => JSON.parse((sent[0] === 0x1f && sent[1] === 0x8b ? gunzipSync(sent) : sent).toString()) as Json;
      const refetched = page.waitForResponse((r) => {
        if (new URL(r.url()).pathname !== '/flags/') return false;
        const sent = r.request().postDataBuffer();
        // posthog-js gzips the body when the browser can (see posthog-js.test.ts).
        return sent !== null && bodyOf(sent).person_properties?.[`$feature_enrollment/${key}`] === undefined;
      });
      await page.evaluate(() => {
        posthog.resetPersonPropertiesForFlags();
        posthog.reloadFeatureFlags();
      });
      const response = await refetched;
      expect(bodyOf(response.request().postDataBuffer()!).distinct_id).toBe(distinctId);
      const answer = (await response.json()) as Json;
      expect(answer.flags[key].enabled).toBe(true);
      expect(await page.evaluate((key) => posthog.isFeatureEnabled(key), key)).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('recordings: the recorder loads from /static/, and the session is listed with rrweb snapshots', async () => {
    const { page, errors, requests, close } = await open('/npm.html');
    try {
      await page.waitForFunction(() => posthog.sessionRecordingStarted());
      const sessionId = await page.evaluate(() => posthog.get_session_id());
      await page.click('#buy');
      await page.evaluate(`document.body.insertAdjacentHTML('beforeend', '<p id="added">added after load</p>')`);
      const list = await until('the recording', () => api('/session_recordings/'), (r) => r.results?.some((x: Json) => x.id === sessionId));
      expect(list.results.find((x: Json) => x.id === sessionId)).toMatchObject({
        distinct_id: await page.evaluate(() => posthog.get_distinct_id()),
        start_url: `${site.url}/npm.html`,
      });
      const paths = requests.map((r) => new URL(r.url()).pathname);
      expect(paths.some((p) => /^\/static\/.*recorder.*\.js$/.test(p))).toBe(true);
      expect(paths).toContain('/s/');

      const sources = await api(`/session_recordings/${sessionId}/snapshots`);
      expect(sources.sources.length).toBeGreaterThan(0);
      // The recorder flushes on its own timer: wait until the DOM change (a Mutation, compressed by the
      // recorder so its text is not readable here) and the click have arrived too.
      const lines = await until(
        'the snapshots',
        async () => {
          const res = await s.api(`${project()}/session_recordings/${sessionId}/snapshots?source=blob_v2`);
          expect(res.status).toBe(200);
          return (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as [string, { type: number; timestamp: number; data: Json }]);
        },
        (l) => l.some(([, e]) => e.type === 3 && e.data.source === 0) && l.some(([, e]) => e.type === 3 && e.data.source === 2 && e.data.type === 2),
      );
      const types = lines.map(([, e]) => e.type);
      expect(types).toContain(4); // Meta
      expect(types).toContain(2); // FullSnapshot
      expect(types).toContain(3); // IncrementalSnapshot
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
