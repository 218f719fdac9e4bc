import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { NatsIngestTransport } from '../../../src/adapters/nats/nats-transport';
import { startIngestConsumers, type IngestConsumers } from '../../../src/adapters/nats/ingest-consumer';
import { eventually } from '../../support/eventually';
import { deleteStream, LOCAL_NATS_URL, natsReachable, uniqueLayout } from '../../support/nats';
import { startTestServer, type TestServer } from '../../support/server';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from './chromium';
import { startPageServer, type PageServer } from './page-server';
import { npmPage, type InitOptions } from './pages';

const REACHABLE = await natsReachable();
const available = chromiumAvailable();
const moduleBuild = readFileSync(createRequire(import.meta.url).resolve('posthog-js/dist/module.mjs'));

describe('NATS availability for the browser suite', () => {
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(REACHABLE, `NATS at ${LOCAL_NATS_URL} is unreachable`).toBe(true);
  });
});

/** What the page's posthog-js puts on the window, as this test reads it inside the page. */
declare global {
  var __posthogLoaded: boolean | undefined;
  var posthog: { get_distinct_id(): string; capture(event: string, properties: object): void };
}

interface StoredEvent {
  uuid: string;
  event: string;
  properties: Record<string, unknown>;
}

/**
 * posthog-js in Chromium with capture publishing to JetStream (issue 24): what the page sends is
 * acknowledged once JetStream holds it, and the ingest consumers append it to the log, where the
 * events API finds it, once each.
 */
describe.runIf(REACHABLE && available)('posthog-js in Chromium through NATS JetStream', () => {
  const layout = uniqueLayout();
  let s: TestServer;
  let consumers: IngestConsumers;
  let site: PageServer;
  let browser: Browser;
  beforeAll(async () => {
    s = await startTestServer({ ingestTransport: await NatsIngestTransport.open({ url: LOCAL_NATS_URL, ...layout }) });
    consumers = await startIngestConsumers(s.runtime.log, { url: LOCAL_NATS_URL, ...layout });
    const init: InitOptions = { apiHost: s.url, token: s.credentials.project_api_key };
    site = await startPageServer({
      '/npm.html': { type: 'text/html', body: npmPage(init, '/assets/posthog-js.mjs') },
      '/assets/posthog-js.mjs': { type: 'text/javascript', body: moduleBuild },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await consumers?.stop();
    await s?.close();
    await deleteStream(LOCAL_NATS_URL, layout.stream);
  });

  it('a pageview, custom events and an autocaptured click arrive, each once, with no console error', async () => {
    const context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('requestfailed', (r) => errors.push(`${r.url()}: ${r.failure()?.errorText}`));
    page.on('response', (r) => void (r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`)));
    try {
      await page.goto(`${site.url}/npm.html`);
      await page.waitForFunction(() => globalThis.__posthogLoaded === true);
      const distinctId = await page.evaluate(() => globalThis.posthog.get_distinct_id());
      await page.evaluate(() => {
        for (let i = 0; i < 5; i++) globalThis.posthog.capture('through nats', { i });
      });
      await page.click('#buy');
      const stored = await eventually(
        async () =>
          ((await (await s.api(`/api/projects/${s.credentials.project_id}/events/?distinct_id=${encodeURIComponent(distinctId)}&limit=100`)).json()) as { results: StoredEvent[] }).results,
        (e) => e.filter((x) => x.event === 'through nats').length >= 5 && e.some((x) => x.event === '$pageview') && e.some((x) => x.event === '$autocapture'),
        30_000,
      );
      const custom = stored.filter((e) => e.event === 'through nats');
      expect(custom.map((e) => e.properties.i).sort()).toEqual([0, 1, 2, 3, 4]);
      expect(new Set(stored.map((e) => e.uuid)).size).toBe(stored.length);
      expect(stored.find((e) => e.event === '$autocapture')!.properties.$event_type).toBe('click');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
