import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../../support/server';
import { posthogClient, settle } from '../../support/posthog';
import { repoRoot } from '../../support/child';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from './chromium';

/**
 * Issue 27: the operator console at `/`, driven in Chromium against a real service. Screenshots of
 * each page land in test-results/console/ for a person to look at.
 */
const available = chromiumAvailable();
const SHOTS = join(repoRoot, 'test-results', 'console');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const HOSTILE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;

describe.skipIf(!available)('the operator console in Chromium', () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];

  const flagsAnswer = async (distinctId: string, key: string) => {
    const res = await fetch(`${s.url}/flags/?v=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: s.credentials.project_api_key, distinct_id: distinctId }),
    });
    const body = (await res.json()) as { flags: Record<string, { enabled: boolean; variant: string | null; reason: { code: string } }> };
    return body.flags[key];
  };
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  /** axe-core run inside the page (evaluate is not subject to the page's CSP); serious or critical only. */
  const seriousViolations = async () => {
    await page.evaluate(`${AXE}\n;0`);
    const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then(r => r.violations.map(v => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`)) as { id: string; impact: string }[];
    return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  };
  const nav = async (label: string, heading: string) => {
    await page.getByRole('link', { name: label, exact: true }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  };
  const signIn = async (key: string) => {
    await page.goto(`${s.url}/`);
    await page.getByLabel('Personal API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // Loopback destinations are allowed for the export form's test (an HTTP receiver on this machine).
    s = await startTestServer({ env: { EXPORT_ALLOWED_HOSTS: '127.0.0.0/8' } });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('serves small assets under a strict CSP that forbids framing', async () => {
    const res = await fetch(`${s.url}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    let total = 0;
    for (const path of ['/', '/console/app.js', '/console/app.css']) {
      const body = Buffer.from(await (await fetch(`${s.url}${path}`)).arrayBuffer());
      const gz = gzipSync(body).length;
      total += gz;
      process.stdout.write(`console asset ${path}: ${body.length} bytes, ${gz} gzipped\n`);
    }
    process.stdout.write(`console assets total: ${total} bytes gzipped (limit 256000)\n`);
    expect(total).toBeLessThanOrEqual(250 * 1024);
    expect((await fetch(`${s.url}/console/../main.js`)).status).toBe(404);
  });

  it('signs in with a personal key, kept out of the URL; the first page is usable quickly', async () => {
    const started = Date.now();
    await page.goto(`${s.url}/`);
    await page.getByLabel('Personal API key').waitFor();
    process.stdout.write(`console first page usable (sign-in form) in ${Date.now() - started} ms\n`);
    await shot('sign-in');
    expect(await seriousViolations()).toEqual([]);
    await page.getByLabel('Personal API key').fill('phx_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That key was not accepted.').waitFor();
    // Keyboard only: focus the field, type, Enter.
    await page.getByLabel('Personal API key').fill('');
    await page.getByLabel('Personal API key').focus();
    await page.keyboard.type(s.credentials.personal_api_key);
    const t = Date.now();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('cell', { name: 'access', exact: true }).waitFor();
    process.stdout.write(`console overview usable ${Date.now() - t} ms after sign-in\n`);
    expect(page.url()).not.toContain(s.credentials.personal_api_key);
    // Tab reaches the skip link, then the navigation in order; Enter follows a link.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Feature flags');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Feature flags', level: 1 }).waitFor();
    await nav('Overview', 'Overview');
    await shot('overview');
    expect(await seriousViolations()).toEqual([]);
  }, 60_000);

  it('creates a flag through the form, /flags/ answers with it, rollout edits and "try it" agree with /flags/', async () => {
    await nav('Feature flags', 'Feature flags');
    await page.getByRole('button', { name: 'New flag' }).click();
    await page.getByLabel('Key').fill('console-flag');
    await page.getByLabel('Name').fill(HOSTILE);
    await page.getByLabel('Rollout percentage').fill('100');
    await page.getByRole('button', { name: 'Save flag' }).click();
    await page.getByRole('heading', { name: 'Feature flags', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'console-flag' }).waitFor();
    expect((await flagsAnswer('someone', 'console-flag')).enabled).toBe(true);
    // The markup in the name is shown as text and ran nothing.
    await page.getByRole('cell', { name: HOSTILE }).waitFor();
    expect(await page.locator('table img').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await shot('flags');
    expect(await seriousViolations()).toEqual([]);

    await page.getByRole('link', { name: 'console-flag' }).click();
    await page.getByRole('heading', { name: 'Flag console-flag' }).waitFor();
    await page.getByLabel('Rollout percentage').fill('50');
    await page.getByRole('button', { name: 'Save flag' }).click();
    await page.getByRole('heading', { name: 'Feature flags', level: 1 }).waitFor();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => flagsAnswer(`user-${i}`, 'console-flag')));
    const on = answers.filter((a) => a.enabled).length;
    expect(on).toBeGreaterThan(5);
    expect(on).toBeLessThan(35);

    await page.getByRole('link', { name: 'console-flag' }).click();
    await page.getByRole('heading', { name: 'Flag console-flag' }).waitFor();
    for (const id of ['user-1', 'user-2', 'user-3', 'user-4']) {
      await page.getByLabel('Distinct id').fill(id);
      await page.getByRole('button', { name: 'Evaluate' }).click();
      const expected = await flagsAnswer(id, 'console-flag');
      await page.locator(`.try-answer strong[data-value="${String(expected.enabled)}"]`).waitFor();
      expect(await page.locator('.try-answer span').textContent()).toBe(expected.reason.code);
    }
    await shot('flag-edit');
    expect(await seriousViolations()).toEqual([]);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();

    // A release condition on a person property, through the form; "try it" with properties agrees with /flags/.
    await page.getByRole('button', { name: 'Add property condition' }).click();
    await page.getByLabel('Property', { exact: true }).fill('email');
    await page.getByLabel('Operator').selectOption('icontains');
    await page.getByLabel('Value', { exact: true }).fill('@example.com');
    await page.getByLabel('Rollout percentage').fill('100');
    await page.getByRole('button', { name: 'Save flag' }).click();
    await page.getByRole('heading', { name: 'Feature flags', level: 1 }).waitFor();
    const flag = (await (await s.api(`/api/projects/${s.credentials.project_id}/feature_flags/?search=console-flag`)).json()) as { results: { filters: { groups: unknown[] } }[] };
    expect(flag.results[0].filters.groups).toEqual([{ properties: [{ key: 'email', operator: 'icontains', type: 'person', value: '@example.com' }], rollout_percentage: 100 }]);
    await page.getByRole('link', { name: 'console-flag' }).click();
    await page.getByLabel('Distinct id').fill('ann');
    await page.getByLabel('Person properties (JSON)').fill('{"email": "ann@EXAMPLE.com"}');
    await page.getByRole('button', { name: 'Evaluate' }).click();
    await page.locator('.try-answer strong[data-value="true"]').waitFor();
    await page.getByLabel('Person properties (JSON)').fill('{"email": "ann@elsewhere.org"}');
    await page.getByRole('button', { name: 'Evaluate' }).click();
    await page.locator('.try-answer strong[data-value="false"]').waitFor();
    expect(await page.locator('.try-answer span').textContent()).toBe('no_condition_match');
  }, 90_000);

  it('a flag matched by groups: made through the form on a group property, and "try it" with a group key agrees with /flags/', async () => {
    const client = posthogClient(s);
    client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { tier: 'gold' } });
    await client.shutdown();
    await settle(s);
    await nav('Feature flags', 'Feature flags');
    await page.getByRole('button', { name: 'New flag' }).click();
    await page.getByLabel('Key').fill('console-group-flag');
    await page.getByRole('combobox', { name: /^Match by/ }).selectOption({ label: 'Groups: company' });
    await page.getByRole('button', { name: 'Add property condition' }).click();
    await page.getByLabel('Group property').fill('tier');
    await page.getByLabel('Value', { exact: true }).fill('gold');
    await page.getByRole('button', { name: 'Save flag' }).click();
    await page.getByRole('link', { name: 'console-group-flag' }).waitFor();
    const saved = (await (await s.api(`/api/projects/${s.credentials.project_id}/feature_flags/?search=console-group-flag`)).json()) as { results: { filters: Record<string, unknown> }[] };
    expect(saved.results[0].filters).toMatchObject({
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: 'tier', operator: 'exact', type: 'group', group_type_index: 0, value: 'gold' }], rollout_percentage: 100 }],
    });
    await page.getByRole('link', { name: 'console-group-flag' }).click();
    for (const [tier, enabled] of [['gold', true], ['free', false]] as const) {
      await page.getByLabel('Distinct id').fill('someone');
      await page.getByLabel('Group key (company)').fill('acme');
      await page.getByLabel('Group properties (JSON)').fill(JSON.stringify({ tier }));
      await page.getByRole('button', { name: 'Evaluate' }).click();
      const direct = await fetch(`${s.url}/flags/?v=2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: s.credentials.project_api_key, distinct_id: 'someone', groups: { company: 'acme' }, group_properties: { company: { tier } } }),
      });
      const expected = ((await direct.json()) as { flags: Record<string, { enabled: boolean; reason: { code: string } }> }).flags['console-group-flag'];
      expect(expected.enabled).toBe(enabled);
      await page.locator(`.try-answer strong[data-value="${String(enabled)}"]`).waitFor();
      expect(await page.locator('.try-answer span').textContent()).toBe(expected.reason.code);
    }
    await shot('flag-groups');
    expect(await seriousViolations()).toEqual([]);
  }, 60_000);

  it('a key created in the console works for the API and, revoked there, no longer does', async () => {
    await nav('Projects and keys', 'Projects and keys');
    await page.getByLabel('Label').fill('teammate');
    await page.getByLabel('Scopes').selectOption('Feature flags (read and write)');
    await page.getByRole('button', { name: 'Create key' }).click();
    const value = await page.getByLabel('New key value').inputValue();
    expect(value).toMatch(/^phx_/);
    await shot('keys');
    expect(await seriousViolations()).toEqual([]);
    const flagsPath = `/api/projects/${s.credentials.project_id}/feature_flags/`;
    expect((await s.api(flagsPath, { key: value })).status).toBe(200);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('button', { name: 'Revoke key teammate' }).click();
    await page.getByRole('button', { name: 'Revoke key teammate' }).waitFor({ state: 'detached' });
    expect((await s.api(flagsPath, { key: value })).status).toBe(401);
  }, 60_000);

  const CLICKS_METRIC = { kind: 'ExperimentMetric', metric_type: 'mean', uuid: 'console-clicks', name: 'Clicks per user', source: { kind: 'EventsNode', event: 'click' } };
  it('shows an experiment\'s results with a plot and the same probabilities as the /results JSON', async () => {
    const base = `/api/projects/${s.credentials.project_id}`;
    const created = await s.api(`${base}/experiments/`, {
      method: 'POST',
      body: JSON.stringify({ name: `Checkout ${HOSTILE}`, feature_flag_key: 'console-exp', start_date: '2024-01-01T00:00:00.000Z', filters: { insight: 'TRENDS', events: [{ id: 'click' }] }, secondary_metrics: [{ name: 'Clicks again', filters: { insight: 'TRENDS', events: [{ id: 'click' }] } }], metrics: [CLICKS_METRIC] }),
    });
    const experiment = (await created.json()) as { id: number };
    expect(created.status).toBe(201);
    const client = posthogClient(s);
    const timestamp = new Date(Date.now() - 3_600_000);
    for (const [variant, clicks] of [['control', 1], ['test', 2]] as const) {
      for (let i = 0; i < 60; i++) {
        const distinctId = `${variant}-${i}`;
        const props = { $feature_flag: 'console-exp', $feature_flag_response: variant, '$feature/console-exp': variant };
        client.capture({ distinctId, event: '$feature_flag_called', properties: props, timestamp });
        for (let c = 0; c < clicks + (i % 3); c++) client.capture({ distinctId, event: 'click', properties: { '$feature/console-exp': variant }, timestamp });
      }
    }
    await client.shutdown();
    await settle(s);
    const results = (await (await s.api(`${base}/experiments/${experiment.id}/results/`)).json()) as { result: { probability: Record<string, number> } };

    await nav('Experiments', 'Experiments');
    // One made through the form, with its flag.
    await page.getByLabel('Experiment name').fill('Made in the console');
    await page.getByLabel('Flag key').fill('console-made-exp');
    await page.getByLabel('Metric event').fill('signup');
    await page.getByRole('button', { name: 'Create and launch' }).click();
    await page.getByRole('link', { name: 'Made in the console' }).waitFor();
    const flags = (await (await s.api(`${base}/feature_flags/?search=console-made-exp`)).json()) as { results: { key: string; filters: { multivariate: { variants: { key: string }[] } } }[] };
    expect(flags.results[0].filters.multivariate.variants.map((v) => v.key)).toEqual(['control', 'test']);
    // A funnel one: the steps become the funnel's ordered events; a single step is refused, shown.
    await page.getByLabel('Experiment name').fill('Funnel from the console');
    await page.getByLabel('Flag key').fill('console-funnel-exp');
    await page.getByRole('combobox', { name: /^Metric/ }).selectOption('FUNNELS');
    await page.getByLabel('Funnel steps (comma separated)').fill('$pageview');
    await page.getByRole('button', { name: 'Create and launch' }).click();
    await page.getByRole('alert').filter({ hasText: 'at least two steps' }).waitFor();
    const listedNames = ((await (await s.api(`${base}/experiments/?limit=200`)).json()) as { results: { name: string }[] }).results.map((e) => e.name);
    expect(listedNames).not.toContain('Funnel from the console');
    await page.getByLabel('Funnel steps (comma separated)').fill('$pageview, signup , purchase');
    await page.getByRole('button', { name: 'Create and launch' }).click();
    await page.getByRole('link', { name: 'Funnel from the console' }).waitFor();
    const made = (await (await s.api(`${base}/experiments/?limit=200`)).json()) as { results: { name: string; filters: { insight: string; events: { id: string; order: number }[] } }[] };
    const funnel = made.results.find((e) => e.name === 'Funnel from the console')!;
    expect(funnel.filters.insight).toBe('FUNNELS');
    expect(funnel.filters.events).toEqual([{ id: '$pageview', order: 0 }, { id: 'signup', order: 1 }, { id: 'purchase', order: 2 }]);
    await shot('experiments');
    expect(await seriousViolations()).toEqual([]);
    await page.getByRole('link', { name: `Checkout ${HOSTILE}` }).click();
    await page.getByRole('heading', { name: 'Experiment results' }).waitFor();
    await page.locator('.plot canvas').first().waitFor();
    for (const [variant, p] of Object.entries(results.result.probability)) {
      expect(await page.locator(`.probability[data-variant="${variant}"]`).textContent()).toBe(p.toFixed(4));
    }
    const secondary = (await (await s.api(`${base}/experiments/${experiment.id}/secondary_results/`)).json()) as { result: { probability?: Record<string, number> }[] };
    await page.getByRole('heading', { name: 'Clicks again' }).waitFor();
    for (const [variant, p] of Object.entries(secondary.result[0].probability ?? {})) {
      expect(await page.locator(`.secondary-probability[data-variant="${variant}"]`).textContent()).toBe(p.toFixed(4));
    }
    expect(Object.keys(secondary.result[0].probability ?? {}).length).toBe(2);
    await page.getByRole('img', { name: /Credible intervals of Clicks again for control, test/ }).waitFor();
    const plot = page.getByRole('img', { name: /Credible intervals for control, test/ });
    expect(await plot.count()).toBe(1);
    // Exposures over time: the same totals as the ExperimentExposureQuery's answer, drawn as lines.
    const exposures = (await (
      await s.api(`${base}/query/`, { method: 'POST', body: JSON.stringify({ query: { kind: 'ExperimentExposureQuery', experiment_id: experiment.id } }) })
    ).json()) as { total_exposures: Record<string, number> };
    expect(exposures.total_exposures).toEqual({ control: 60, test: 60 });
    await page.getByRole('img', { name: /Cumulative exposures over time for control, test/ }).waitFor();
    for (const [variant, n] of Object.entries(exposures.total_exposures)) {
      expect(await page.locator(`.exposure-total[data-variant="${variant}"]`).textContent()).toBe(String(n));
    }
    expect(await page.locator('.srm').textContent()).toMatch(/p = 1\.00/);
    // The current metric (PostHog's `metrics`): the page shows the ExperimentQuery's chance to win, and plots its interval.
    const current = (await (
      await s.api(`${base}/query/`, { method: 'POST', body: JSON.stringify({ query: { kind: 'ExperimentQuery', experiment_id: experiment.id, metric: CLICKS_METRIC } }) })
    ).json()) as { variant_results: { key: string; chance_to_win: number }[] };
    const metricRow = page.locator('.metric[data-metric="console-clicks"]');
    await metricRow.locator('.metric-stat[data-variant="test"]').waitFor();
    expect(await metricRow.locator('.metric-stat[data-variant="test"]').textContent()).toBe(current.variant_results[0].chance_to_win.toFixed(4));
    expect(current.variant_results[0].chance_to_win).toBeGreaterThan(0.9);
    await page.getByRole('img', { name: /Credible intervals of Primary: Clicks per user for test/ }).waitFor();
    await shot('experiment-results');
    expect(await seriousViolations()).toEqual([]);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  }, 90_000);

  it("shows an export's run timeline and logs, and pauses and unpauses it", async () => {
    const base = `/api/projects/${s.credentials.project_id}/batch_exports`;
    const hour = (h: number) => new Date(Math.floor(Date.now() / 3_600_000 - h) * 3_600_000).toISOString();
    const destination = { type: 'File', config: { path: join(s.dataDir, 'exports', 'console') } };
    const exp = (await (await s.api(`${base}/`, { method: 'POST', body: JSON.stringify({ name: `Files ${HOSTILE}`, destination, interval: 'hour', paused: true }) })).json()) as { id: string };
    expect((await s.api(`${base}/${exp.id}/backfill/`, { method: 'POST', body: JSON.stringify({ start_at: hour(4), end_at: hour(2) }) })).status).toBeLessThan(300);
    await s.runtime.exports.scheduler().tick();
    await s.runtime.exports.worker({}).drain();
    await settle(s);
    const runs = (await (await s.api(`${base}/${exp.id}/runs/`)).json()) as { results: { id: string; status: string }[] };
    expect(runs.results.length).toBe(2);

    await nav('Batch exports', 'Batch exports');
    await page.getByRole('link', { name: `Files ${HOSTILE}` }).click();
    await page.getByRole('heading', { name: `Batch export Files ${HOSTILE}` }).waitFor();
    const shown = await page.locator('.timeline .status').allTextContents();
    expect(shown.sort()).toEqual(runs.results.map((r) => r.status).sort());
    await page.locator('table.logs tbody tr').first().waitFor();
    await page.locator('.timeline button').first().click();
    await page.getByRole('heading', { name: 'Logs of the selected run' }).waitFor();
    await page.getByRole('button', { name: 'Unpause' }).click();
    await page.getByRole('button', { name: 'Pause', exact: true }).waitFor();
    expect(((await (await s.api(`${base}/${exp.id}/`)).json()) as { paused: boolean }).paused).toBe(false);
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByRole('button', { name: 'Unpause' }).waitFor();
    await shot('export');
    expect(await seriousViolations()).toEqual([]);
    await nav('Batch exports', 'Batch exports');
    await shot('exports');
    expect(await seriousViolations()).toEqual([]);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  }, 90_000);

  it('creates an export from the form and edits it; a secret is write-only and kept when left empty', async () => {
    const base = `/api/projects/${s.credentials.project_id}/batch_exports`;
    await nav('Batch exports', 'Batch exports');
    // A /batch/ receiver on this machine: what the export sends shows which token it holds.
    const received: { api_key: string; batch: unknown[] }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(JSON.parse(gunzipSync(Buffer.concat(chunks)).toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":1}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/batch/`;
    await page.getByRole('button', { name: 'New batch export' }).click();
    const form = page.getByRole('form', { name: 'New batch export' });
    await form.getByLabel('Name').fill('Mirror to staging');
    await form.getByLabel('Interval').selectOption('day');
    await form.getByLabel('Destination').selectOption('HTTP');
    await form.getByLabel('Receiving /batch/ URL').fill(receiverUrl);
    // A value the API refuses comes back as its message, and nothing is created.
    await form.getByLabel('Receiving project key').fill('phc_staging_secret');
    await form.getByLabel('Receiving /batch/ URL').fill('ftp://nowhere');
    await form.getByRole('button', { name: 'Create export' }).click();
    await form.getByRole('alert').waitFor();
    expect(await form.getByRole('alert').textContent()).toMatch(/http\(s\) URL/);
    await form.getByLabel('Receiving /batch/ URL').fill(receiverUrl);
    await form.getByRole('button', { name: 'Create export' }).click();
    await page.getByRole('heading', { name: 'Batch export Mirror to staging' }).waitFor();
    const list = (await (await s.api(`${base}/`)).json()) as { results: { id: string; name: string; interval: string; destination: { type: string; config: Record<string, unknown> } }[] };
    const created = list.results.filter((e) => e.name === 'Mirror to staging');
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ interval: 'day', destination: { type: 'HTTP', config: { url: receiverUrl } } });
    expect(JSON.stringify(created[0])).not.toContain('phc_staging_secret');

    // Edit: the secret field starts empty (never shown); left empty, the stored one is kept.
    await page.getByRole('button', { name: 'Edit destination' }).click();
    const edit = page.getByRole('form', { name: 'Edit batch export' });
    expect(await edit.getByLabel('Receiving project key').inputValue()).toBe('');
    expect(await page.content()).not.toContain('phc_staging_secret');
    await edit.getByLabel('Name').fill('Mirror to staging, hourly');
    await edit.getByLabel('Interval').selectOption('hour');
    await shot('export-edit');
    expect(await seriousViolations()).toEqual([]);
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Batch export Mirror to staging, hourly' }).waitFor();
    const after = (await (await s.api(`${base}/${created[0].id}/`)).json()) as { interval: string };
    expect(after.interval).toBe('hour');
    // The export still sends the token given at creation: an event of two hours ago, backfilled.
    const hourStart = Math.floor(Date.now() / 3_600_000 - 2) * 3_600_000;
    const captured = await fetch(`${s.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: s.credentials.project_api_key, batch: [{ event: 'mirrored', distinct_id: 'm', timestamp: new Date(hourStart + 60_000).toISOString() }] }),
    });
    expect(captured.status).toBe(200);
    await settle(s);
    const backfill = await s.api(`${base}/${created[0].id}/backfill/`, { method: 'POST', body: JSON.stringify({ start_at: new Date(hourStart).toISOString(), end_at: new Date(hourStart + 3_600_000).toISOString() }) });
    expect(backfill.status).toBeLessThan(300);
    await s.runtime.exports.scheduler().tick();
    await s.runtime.exports.worker({}).drain();
    receiver.close();
    expect(received.length).toBeGreaterThan(0);
    expect(received.every((r) => r.api_key === 'phc_staging_secret')).toBe(true);
    expect(received.flatMap((r) => r.batch).some((e) => (e as { event: string }).event === 'mirrored')).toBe(true);
  }, 90_000);

  it('events (filtered, live), a person\'s page, and the surveys/features/cohorts lists show SDK data as text', async () => {
    const base = `/api/projects/${s.credentials.project_id}`;
    const client = posthogClient(s);
    client.capture({ distinctId: 'hostile-person', event: HOSTILE, properties: { note: HOSTILE, $set: { nickname: HOSTILE } } });
    client.capture({ distinctId: 'quiet-person', event: 'ordinary', properties: { plan: 'free' } });
    // The person's page lists a group its events name, and the events of a second distinct id.
    client.groupIdentify({ groupType: 'company', groupKey: 'acme-console', properties: { motto: HOSTILE } });
    client.capture({ distinctId: 'hostile-person', event: 'grouped', groups: { company: 'acme-console' } });
    client.alias({ distinctId: 'hostile-person', alias: 'hostile-alias' });
    client.capture({ distinctId: 'hostile-alias', event: 'sent-as-alias' });
    await client.shutdown();
    await settle(s);
    expect((await s.api(`${base}/surveys/`, { method: 'POST', body: JSON.stringify({ name: `Survey ${HOSTILE}`, type: 'popover' }) })).status).toBe(201);
    expect((await s.api(`${base}/early_access_feature/`, { method: 'POST', body: JSON.stringify({ name: `Feature ${HOSTILE}`, stage: 'beta' }) })).status).toBe(201);

    await nav('Events', 'Events');
    await page.getByRole('cell', { name: HOSTILE, exact: true }).waitFor();
    await page.getByRole('cell', { name: 'ordinary', exact: true }).waitFor();
    await page.getByLabel('Distinct id').fill('quiet-person');
    await page.getByLabel('Distinct id').press('Enter');
    await page.getByRole('cell', { name: HOSTILE, exact: true }).waitFor({ state: 'detached' });
    await page.getByLabel('Distinct id').fill('');
    await page.getByLabel('Distinct id').press('Enter');
    await page.getByLabel('Property (key or key=value)').fill('plan=free');
    await page.getByRole('cell', { name: HOSTILE, exact: true }).waitFor({ state: 'detached' });
    expect(await page.getByRole('cell', { name: 'ordinary', exact: true }).count()).toBe(1);
    await page.getByLabel('Property (key or key=value)').fill('');
    // Live: an event sent now shows up without reloading.
    const late = posthogClient(s);
    late.capture({ distinctId: 'late-person', event: 'arrived-later' });
    await late.shutdown();
    await page.getByRole('cell', { name: 'arrived-later', exact: true }).waitFor({ timeout: 15_000 });
    await shot('events');
    expect(await seriousViolations()).toEqual([]);

    await nav('Persons', 'Persons');
    await page.getByLabel('Distinct id').fill('hostile-person');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'hostile-person' }).click();
    await page.getByRole('heading', { name: 'Person hostile-person' }).waitFor();
    await page.getByRole('cell', { name: HOSTILE, exact: true }).first().waitFor();
    await page.getByRole('cell', { name: 'sent-as-alias', exact: true }).waitFor();
    const groupRow = page.locator('.person-groups tbody tr');
    await groupRow.first().waitFor();
    expect(await groupRow.count()).toBe(1);
    expect(await groupRow.locator('td').allTextContents()).toEqual(['company', 'acme-console', JSON.stringify({ motto: HOSTILE })]);
    await shot('person');
    expect(await seriousViolations()).toEqual([]);

    // The overview counts them per minute in a chart.
    await nav('Overview', 'Overview');
    const caption = page.locator('figcaption', { hasText: 'events in the last 3 hours' });
    await caption.waitFor();
    const counted = Number((await caption.textContent())!.split(' ')[0]);
    const listed = (await (await s.api(`${base}/events/?limit=1000&after=${encodeURIComponent(new Date(Date.now() - 3 * 3_600_000).toISOString())}`)).json()) as { results: unknown[] };
    expect(counted).toBe(listed.results.length);
    expect(counted).toBeGreaterThanOrEqual(3);
    await page.getByRole('img', { name: /Events per minute/ }).locator('canvas').waitFor();
    await page.getByText('No recently failed export runs.').waitFor();
    await shot('overview-activity');
    expect(await seriousViolations()).toEqual([]);

    await nav('Surveys, features, cohorts', 'Surveys, features and cohorts');
    await page.getByRole('cell', { name: `Survey ${HOSTILE}` }).waitFor();
    await page.getByRole('cell', { name: `Feature ${HOSTILE}` }).waitFor();
    await shot('catalogue');
    expect(await seriousViolations()).toEqual([]);
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  }, 90_000);

  it('a read-only key limited to one project sees only that project and no write controls', async () => {
    const other = (await (await s.api('/api/projects/', { method: 'POST', body: JSON.stringify({ name: 'Other project' }) })).json()) as { id: number };
    const created = await s.api('/api/personal_api_keys/', {
      method: 'POST',
      body: JSON.stringify({ label: 'reader', scopes: ['project:read', 'feature_flag:read', 'experiment:read', 'user:read'], scoped_teams: [s.credentials.project_id] }),
    });
    const reader = ((await created.json()) as { value: string }).value;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Personal API key').waitFor();
    await signIn(reader);
    const projectIds = await page.locator('header select option').evaluateAll((os) => os.map((o) => o.getAttribute("value")));
    expect(projectIds).toEqual([String(s.credentials.project_id)]);
    expect(projectIds).not.toContain(String(other.id));
    await nav('Feature flags', 'Feature flags');
    await page.getByRole('link', { name: 'console-flag' }).waitFor();
    expect(await page.getByRole('button', { name: 'New flag' }).count()).toBe(0);
    await page.getByRole('link', { name: 'console-flag' }).click();
    await page.getByRole('heading', { name: 'Flag console-flag' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save flag' }).count()).toBe(0);
    expect(await page.getByLabel('Rollout percentage').isDisabled()).toBe(true);
    await nav('Experiments', 'Experiments');
    expect(await page.getByRole('button', { name: 'Create and launch' }).count()).toBe(0);
    await nav('Projects and keys', 'Projects and keys');
    expect(await page.getByRole('button', { name: 'Create project' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Rename/ }).count()).toBe(0);
    await shot('read-only-keys');
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  }, 60_000);
});
