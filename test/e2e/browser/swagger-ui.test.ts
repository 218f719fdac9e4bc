import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../../support/server';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from './chromium';

/**
 * Issue 15 item 2: the Swagger UI page at /api/schema/swagger-ui/, opened in Chromium, renders the
 * service's OpenAPI document from the service alone (any request elsewhere fails the test) and
 * lists the experiments endpoints.
 */
const available = chromiumAvailable();

describe.skipIf(!available)('the Swagger UI page in Chromium', () => {
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    s = await startTestServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('lists the experiments endpoints, loading nothing from outside the service', async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(s.url) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const res = await page.goto(`${s.url}/api/schema/swagger-ui/`);
    expect(res?.status()).toBe(200);
    // Swagger UI renders one block per operation (method and path), and past a number of
    // operations only those near the viewport: the page is scrolled through, collecting each
    // block seen, until it ends.
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    const seen = new Map<string, Set<string>>();
    for (let step = 0, last = -1; step < 400; step++) {
      const blocks = await page.locator('.opblock').evaluateAll((els) =>
        els.map((el) => [el.querySelector('.opblock-summary-path')?.textContent ?? '', el.querySelector('.opblock-summary-method')?.textContent ?? '']),
      );
      for (const [path, method] of blocks) {
        const clean = path.replace(/\u200b/g, '');
        seen.set(clean, (seen.get(clean) ?? new Set()).add(method));
      }
      const y = await page.evaluate<number>('window.scrollBy(0, window.innerHeight / 2), window.scrollY');
      if (y === last) break;
      last = y;
      await page.waitForTimeout(30);
    }
    const experiments = [...seen.keys()].filter((p) => p.includes('/experiments/'));
    expect(experiments).toEqual(
      expect.arrayContaining([
        '/api/projects/{project_id}/experiments/',
        '/api/projects/{project_id}/experiments/{id}/',
        '/api/projects/{project_id}/experiments/{id}/results/',
      ]),
    );
    // The experiments tag groups them, and their methods are shown.
    const methods = new Set(experiments.flatMap((p) => [...seen.get(p)!]));
    expect(methods).toEqual(new Set(['GET', 'POST', 'PATCH', 'DELETE']));
    // Every tag's operations were rendered on the way (the last one's too).
    expect(seen.has('/api/projects/{project_id}/activity_log/')).toBe(true);
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);
});
