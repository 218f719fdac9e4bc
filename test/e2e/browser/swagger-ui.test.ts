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
    // Swagger UI renders one block per operation: method and path.
    const operation = page.locator('.opblock', { hasText: '/api/projects/{project_id}/experiments/' });
    await operation.first().waitFor({ timeout: 30_000 });
    const listed = await page.locator('.opblock .opblock-summary-path').allTextContents();
    const experiments = listed.map((p) => p.replace(/\u200b/g, '')).filter((p) => p.includes('/experiments/'));
    expect(experiments).toEqual(
      expect.arrayContaining([
        '/api/projects/{project_id}/experiments/',
        '/api/projects/{project_id}/experiments/{id}/',
        '/api/projects/{project_id}/experiments/{id}/results/',
      ]),
    );
    // The experiments tag groups them, and their methods are shown.
    const methods = await page.locator('.opblock', { hasText: '/experiments/' }).locator('.opblock-summary-method').allTextContents();
    expect(new Set(methods)).toEqual(new Set(['GET', 'POST', 'PATCH', 'DELETE']));
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);
});
