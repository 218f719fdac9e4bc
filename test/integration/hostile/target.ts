import { expect } from 'vitest';
import { settle } from '../../support/posthog';
import { startTestServer, type TestServer } from '../../support/server';
import { errorShapeProblem, rawRequest, type RawResponse } from './raw-request';

/**
 * The server every hostile request goes to, with one real object of each kind so path
 * parameters can name something that exists as well as something that does not.
 */
export interface Target {
  s: TestServer;
  /** Every route the app registers (HEAD twins left out: they run the GET handler). */
  routes: { method: string; url: string }[];
  /** Real values for a route's path parameters, by parameter and by the collection before `:id`. */
  real: { project_id: string; organization_id: string; run_id: string; ids: Record<string, string> };
  keys: { personal: string; project: string; revoked: string };
  /** Whether /_health was ok after the last request. */
  healthy: boolean;
}

const json = async (res: Response) => {
  const text = await res.text();
  expect(res.ok, text).toBe(true);
  return JSON.parse(text) as Record<string, unknown> & { id: string | number; results: Record<string, unknown>[] };
};

export async function startTarget(): Promise<Target> {
  const s = await startTestServer();
  const p = s.credentials.project_id;
  const post = (path: string, body: unknown) => s.api(path, { method: 'POST', body: JSON.stringify(body) }).then(json);

  const flag = await post(`/api/projects/${p}/feature_flags/`, { key: 'real-flag', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
  const experiment = await post(`/api/projects/${p}/experiments/`, { name: 'real', feature_flag_key: 'real-experiment', start_date: '2024-01-01T00:00:00Z' });
  const linked = await post(`/api/projects/${p}/experiments/${experiment.id}/create_exposure_cohort_for_experiment/`, {});
  const batchExport = await post(`/api/projects/${p}/batch_exports/`, {
    name: 'real',
    destination: { type: 'File', config: { path: `${s.dataDir}/exports/real` } },
    interval: 'hour',
    paused: true,
  });
  await post(`/api/projects/${p}/batch_exports/${batchExport.id}/backfill/`, { start_at: '2024-01-01T00:00:00Z', end_at: '2024-01-01T02:00:00Z' });
  const capture = await fetch(`${s.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: s.credentials.project_api_key, batch: [{ event: '$pageview', distinct_id: 'real-person', properties: { $set: { plan: 'pro' } } }] }),
  });
  expect(capture.status).toBe(200);
  // Backfill runs are materialised by the scheduler, which a test server does not run: one tick.
  await s.runtime.exports.scheduler().tick();
  await settle(s);
  const person = (await json(await s.api(`/api/projects/${p}/persons/`))).results[0];
  const runs = await json(await s.api(`/api/projects/${p}/batch_exports/${batchExport.id}/runs/`));
  expect(runs.results.length).toBeGreaterThan(0);

  const user = (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!;
  const revoked = await s.runtime.access.createPersonalKey({ userId: user.id, label: 'revoked', scopes: ['*'] as never, scopedProjects: null }, { type: 'system' });
  await s.runtime.access.revokePersonalKey((await s.runtime.queries.access.keys()).at(-1)!.id, { type: 'system' });

  return {
    s,
    routes: s.app.routeTable.filter((r) => r.method !== 'HEAD'),
    real: {
      project_id: String(p),
      organization_id: s.credentials.organization_id,
      run_id: String(runs.results[0].id),
      ids: {
        feature_flags: String(flag.id),
        experiments: String(experiment.id),
        cohorts: String(linked.exposure_cohort),
        batch_exports: String(batchExport.id),
        persons: String(person.uuid ?? person.id),
      },
    },
    keys: { personal: s.credentials.personal_api_key, project: s.credentials.project_api_key, revoked: revoked.key },
    healthy: true,
  };
}

/** Path parameter values that name nothing, or nothing sensible. */
export const BOGUS_IDS = [
  '0',
  '-1',
  '99999999999999999999',
  '1e3',
  'abc',
  '@current',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '%2e%2e',
  '%00',
  '%ED%A0%80',
  '%E0%A4%A',
  '%F0%9F%98%80',
  'x'.repeat(150),
];

/** The route's URL with each `:param` replaced by a real value or by `bogus` when given. */
export function fillPath(t: Target, url: string, bogus?: (name: string) => string | undefined): string {
  return url.replace(/:(\w+)/g, (_m, name: string, offset: number) => {
    const override = bogus?.(name);
    if (override !== undefined) return override;
    if (name === 'id') {
      const collection = url.slice(0, offset - 1).split('/').at(-1) ?? '';
      return t.real.ids[collection] ?? BOGUS_IDS[0];
    }
    return (t.real as unknown as Record<string, string>)[name] ?? BOGUS_IDS[0];
  });
}

export interface HostileRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/**
 * Sends one request and checks what must hold for any input: no 5xx; a refusal has the error
 * shape and appends nothing to the log; the service is still healthy afterwards. Violations are
 * collected in `problems` (one line each) so a run reports all of them, not just the first.
 */
export async function sendHostile(t: Target, problems: string[], req: HostileRequest): Promise<RawResponse> {
  const before = await t.s.runtime.log.head();
  const what = `${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(req.headers ?? {}).slice(0, 300)} body=${describeBody(req.body)}`;
  const res = await rawRequest(t.s.url, req);
  if (process.env.HOSTILE_DEBUG) console.log(`${res.status} ${req.method} ${req.path.slice(0, 80)} ${res.text.slice(0, 120)} ${describeBody(req.body)}`);
  // /_health answers with its own report, 503 included; the check after each request covers it.
  const isHealth = req.path.split('?')[0] === '/_health';
  if (res.status >= 500 && !isHealth) problems.push(`${what} -> ${res.status} ${res.text.slice(0, 300)}`);
  if (res.status >= 400 && !isHealth) {
    const shape = req.method === 'HEAD' ? null : errorShapeProblem(res.text);
    if (shape !== null) problems.push(`${what} -> ${res.status} not the error shape: ${shape}`);
    const after = await t.s.runtime.log.head();
    if (after !== before) problems.push(`${what} -> ${res.status} appended ${after - before} to the log`);
  }
  const health = await rawRequest(t.s.url, { method: 'GET', path: '/_health' });
  const healthy = health.status === 200 && JSON.parse(health.text).status === 'ok';
  // Reported when it turns bad (naming the request that did it), not again on every later one.
  if (!healthy && t.healthy) problems.push(`after ${what}: /_health ${health.status} ${health.text.slice(0, 300)}`);
  t.healthy = healthy;
  return res;
}

/** Fails with every collected problem listed. */
export function expectNoProblems(problems: string[]): void {
  expect(problems.length, `${problems.length} problems:\n${problems.slice(0, 60).join('\n')}`).toBe(0);
}

function describeBody(body: Buffer | string | undefined): string {
  if (body === undefined) return 'none';
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const text = buf.subarray(0, 160).toString('latin1');
  return JSON.stringify(buf.length > 160 ? `${text}… (${buf.length} bytes)` : text);
}
