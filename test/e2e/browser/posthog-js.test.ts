import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { startTestServer, type TestServer } from '../../support/server';
import { settle } from '../../support/posthog';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from './chromium';
import { startPageServer, type PageServer } from './page-server';
import { npmPage, snippetPage, type InitOptions } from './pages';

const moduleBuild = readFileSync(createRequire(import.meta.url).resolve('posthog-js/dist/module.mjs'));
const INGEST = new Set(['/e/', '/i/v0/e/', '/batch/', '/capture/']);
const isIngest = (r: Request) => INGEST.has(new URL(r.url()).pathname);

interface StoredEvent {
  event: string;
  properties: Record<string, unknown>;
  elements_chain: string;
}

let s: TestServer;
let site: PageServer;
let browser: Browser;

/** One page on the site's origin, with everything it logs and requests recorded. */
async function open(path: string) {
  const context = await browser.newContext();
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: Request[] = [];
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('requestfailed', (r) => errors.push(`${r.url()}: ${r.failure()?.errorText}`));
  // Chromium's console line for a failed load omits the URL: name it.
  page.on('response', (r) => void (r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`)));
  page.on('request', (r) => void (r.url().startsWith(s.url) && requests.push(r)));
  await page.goto(site.url + path);
  await page.waitForFunction(() => (globalThis as unknown as { __posthogLoaded?: boolean }).__posthogLoaded === true);
  return { page, errors, requests, close: () => context.close() };
}

const events = async (distinctId: string): Promise<StoredEvent[]> => {
  await settle(s);
  const res = await s.api(`/api/projects/${s.credentials.project_id}/events/?distinct_id=${encodeURIComponent(distinctId)}&limit=100`);
  return ((await res.json()) as { results: StoredEvent[] }).results;
};

/** Waits, batch by batch as the page sends them, until the stored events satisfy `done`. */
async function storedUntil(page: Page, distinctId: string, done: (e: StoredEvent[]) => boolean): Promise<StoredEvent[]> {
  for (;;) {
    const stored = await events(distinctId);
    if (done(stored)) return stored;
    await page.waitForResponse((r) => isIngest(r.request()), { timeout: 15_000 });
  }
}

const distinctIdOf = (page: Page) => page.evaluate(() => (globalThis as unknown as { posthog: { get_distinct_id(): string } }).posthog.get_distinct_id());
const autocaptureOn = (page: Page) =>
  page.waitForFunction(() => (globalThis as unknown as { posthog: { autocapture?: { isEnabled?: boolean } } }).posthog.autocapture?.isEnabled === true);

const available = chromiumAvailable();

describe.skipIf(!available)('posthog-js in Chromium, from another origin', () => {
  beforeAll(async () => {
    s = await startTestServer();
    // Extensions the default build lazy-loads from <api_host>/static/ once remote config asks for them.
    const patched = await s.api(`/api/projects/${s.credentials.project_id}/`, {
      method: 'PATCH',
      body: JSON.stringify({ capture_dead_clicks: true, autocapture_exceptions_opt_in: true }),
    });
    expect(patched.status).toBe(200);
    const init: InitOptions = { apiHost: s.url, token: s.credentials.project_api_key };
    const optedOut: InitOptions = { ...init, extra: 'opt_out_capturing_by_default: true,' };
    site = await startPageServer({
      '/snippet.html': { type: 'text/html', body: snippetPage(init) },
      '/npm.html': { type: 'text/html', body: npmPage(init, '/assets/posthog-js.mjs') },
      '/opted-out.html': { type: 'text/html', body: snippetPage(optedOut) },
      '/assets/posthog-js.mjs': { type: 'text/javascript', body: moduleBuild },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await s?.close();
  });

  for (const [name, path] of [
    ['the snippet loading /static/array.js', '/snippet.html'],
    ['the npm build (module.mjs, as bundled)', '/npm.html'],
  ] as const) {
    it(`${name}: config, pageview, custom event and an autocaptured click arrive compressed, with no console error`, async () => {
      const { page, errors, requests, close } = await open(path);
      try {
        await autocaptureOn(page);
        const distinctId = await distinctIdOf(page);
        await page.evaluate(() => (globalThis as unknown as { posthog: { capture(e: string, p: object): void } }).posthog.capture('custom event', { plan: 'pro' }));
        await page.click('#buy');
        const stored = await storedUntil(page, distinctId, (e) => ['$pageview', 'custom event', '$autocapture'].every((n) => e.some((x) => x.event === n)));

        expect(stored.find((e) => e.event === 'custom event')!.properties).toMatchObject({ plan: 'pro', $lib: 'web' });
        const click = stored.find((e) => e.event === '$autocapture')!;
        expect(click.properties.$event_type).toBe('click');
        expect(click.elements_chain).toMatch(/^button\.cta\.primary.*text="Buy now"/);

        const paths = requests.map((r) => new URL(r.url()).pathname);
        expect(paths.some((p) => p.startsWith(`/array/${s.credentials.project_api_key}/config`))).toBe(true);
        // Extensions come from <api_host>/static/<sdk version>/, as from PostHog's CDN.
        expect(paths).toContain('/static/1.449.2/dead-clicks-autocapture.js');
        expect(paths).toContain('/static/1.449.2/exception-autocapture.js');
        if (path === '/snippet.html') expect(paths).toContain('/static/array.js');
        const ingest = requests.filter(isIngest);
        expect(ingest.length).toBeGreaterThan(0);
        // posthog-js 1.449 gzips with the browser's CompressionStream and names it nowhere (no
        // `compression=` parameter): the body itself is the proof.
        for (const r of ingest) {
          expect([...(r.postDataBuffer() ?? Buffer.alloc(0)).subarray(0, 2)]).toEqual([0x1f, 0x8b]);
        }
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    });
  }

  it('opted out: nothing is sent until the user opts in', async () => {
    const { page, errors, requests, close } = await open('/opted-out.html');
    try {
      await autocaptureOn(page);
      const distinctId = await distinctIdOf(page);
      await page.evaluate(() => (globalThis as unknown as { posthog: { capture(e: string): void } }).posthog.capture('while opted out'));
      await page.click('#buy');
      expect(requests.filter(isIngest)).toEqual([]);
      // Opting in sends a marker; everything queued before it would have arrived first (one FIFO queue).
      await page.evaluate(() => {
        const ph = (globalThis as unknown as { posthog: { opt_in_capturing(): void; capture(e: string): void } }).posthog;
        ph.opt_in_capturing();
        ph.capture('after opt in');
      });
      const stored = await storedUntil(page, distinctId, (e) => e.some((x) => x.event === 'after opt in'));
      expect(stored.map((e) => e.event)).not.toContain('while opted out');
      expect(stored.map((e) => e.event)).not.toContain('$autocapture');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  // Last: it changes the project's settings for every later page.
  it('autocapture_opt_out set through the API turns autocapture off in the browser', async () => {
    const res = await s.api(`/api/projects/${s.credentials.project_id}/`, { method: 'PATCH', body: JSON.stringify({ autocapture_opt_out: true }) });
    expect(res.status).toBe(200);
    const { page, errors, close } = await open('/npm.html');
    try {
      await page.waitForFunction(() => (globalThis as unknown as { posthog: { autocapture?: { isEnabled?: boolean } } }).posthog.autocapture?.isEnabled === false);
      const distinctId = await distinctIdOf(page);
      await page.click('#buy');
      await page.evaluate(() => (globalThis as unknown as { posthog: { capture(e: string): void } }).posthog.capture('after click'));
      const stored = await storedUntil(page, distinctId, (e) => e.some((x) => x.event === 'after click'));
      expect(stored.map((e) => e.event)).not.toContain('$autocapture');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
