import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../../streams';
import { startTestServer, type TestServer } from '../../support/server';
import { bodyFor, idParams, isDocumentationRoute, pathFor, PUBLIC_ASSET_ROUTES, PUBLIC_ROUTES, PUBLIC_TOKEN_QUERY_ROUTES, routesOf, tenancyOf, type Route, type Target } from './routes';
import { populate, type Tenant, type TenantIds } from './tenants';

/**
 * Issue 12 item 5: the authorization matrix over every route the app registers (enumerated from
 * fastify, so a route added later is covered without touching this file, or fails loudly when it
 * needs teaching). Project A is the key's; project B shares A's organization; C is in another
 * organization. Every name in B and C carries a marker, and no answer to a request about A may
 * contain it, nor B's or C's project key. Cases run in parallel against one server; each block
 * collects every failing case, so one run names every leak.
 */
let routes: Route[] = [];
let s: TestServer;
let A: Tenant;
let B: Tenant;
let C: Target;
let headBefore: number;
const key = { limitedToA: '', revoked: '', all: '' };
const lacking = new Map<Scope, string>();

const tenantTarget = (t: Tenant): Target => ({ projectId: t.projectId, organizationId: t.organizationId, token: t.token });
const personal = () => routes.filter((r) => r.scope !== undefined);
const label = (r: Route) => `${r.method} ${r.url}`;

beforeAll(async () => {
  s = await startTestServer();
  routes = routesOf(s.app.routeTable);
  const system = { type: 'system' } as const;
  const { access, queries } = s.runtime;
  const org = s.credentials.organization_id;
  const b = await access.createProject(org, 'ZZLEAKB project', system);
  A = await populate(s, s.credentials.project_id, s.credentials.project_api_key, 'zzowna');
  B = await populate(s, b.id, b.apiToken, 'ZZLEAKB');

  const otherOrg = await access.createOrganization('ZZLEAKC organization', system);
  const outsider = await access.createUser({ email: 'c@example.com', firstName: 'C', lastName: 'C' }, system);
  await access.addMember(otherOrg, outsider, 'owner', system);
  const c = await access.createProject(otherOrg, 'ZZLEAKC project', system);
  C = { projectId: c.id, organizationId: otherOrg, token: c.apiToken };

  const user = (await queries.access.firstUserOf(org))!.id;
  const make = (scopes: string[], scopedProjects: number[] | null = null) =>
    access.createPersonalKey({ userId: user, label: 'matrix', scopes: scopes as Scope[], scopedProjects }, system);
  key.all = s.credentials.personal_api_key;
  key.limitedToA = (await make(['*'], [A.projectId])).key;
  const revoked = await make(['*']);
  await access.revokePersonalKey(revoked.id, system);
  key.revoked = revoked.key;
  // For each scope a route needs: a key with every other scope (a write scope would grant its read).
  for (const scope of new Set(personal().map((r) => r.scope!))) {
    const object = scope.split(':')[0];
    const others = SCOPES.filter((x) => x !== scope && !(scope.endsWith(':read') && x === `${object}:write`));
    lacking.set(scope, (await make(others)).key);
  }
  headBefore = await s.runtime.log.head();
});
afterAll(() => s.close());

interface Answer {
  status: number;
  text: string;
  body: Record<string, unknown> | null;
}

async function send(method: string, path: string, authorization: string | null, body?: unknown): Promise<Answer> {
  const res = await s.api(path, { method, key: authorization, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: Record<string, unknown> | null = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, text, body: parsed };
}

/** Names what leaked into an answer: another tenant's marker or project key. */
function leakIn(a: Answer): string | null {
  for (const secret of ['ZZLEAKB', 'ZZLEAKC', B.token, C.token]) if (a.text.includes(secret)) return `answer contains ${secret.slice(0, 8)}…`;
  return null;
}

/** Null when the answer is the expected error in the spec's shape, else what is wrong. */
function isError(a: Answer, status: number, code: string): string | null {
  if (a.status !== status) return `status ${a.status}, expected ${status}: ${a.text.slice(0, 200)}`;
  const keys = a.body ? Object.keys(a.body).sort().join(',') : '';
  if (keys !== 'attr,code,detail,type') return `not the error shape: ${a.text.slice(0, 200)}`;
  if (a.body!.code !== code) return `code ${String(a.body!.code)}, expected ${code}`;
  return null;
}

interface Case {
  name: string;
  method: string;
  path: string;
  key: string | null;
  body?: unknown;
  check: (a: Answer) => string | null;
}

/** Runs the cases in parallel; the list of failures (empty when all hold) names each one. */
async function failuresOf(cases: Case[]): Promise<string[]> {
  expect(cases.length).toBeGreaterThan(0);
  const results = await Promise.all(
    cases.map(async (c) => {
      const answer = await send(c.method, c.path, c.key, c.body);
      const problem = c.check(answer) ?? leakIn(answer);
      return problem ? `${c.name}: ${c.method} ${c.path}: ${problem}` : null;
    }),
  );
  return results.filter((r): r is string => r !== null);
}

const ownIds = (t: Tenant) => (kind: keyof TenantIds) => t.ids[kind];
const exportPath = () => join(s.dataDir, 'exports', 'matrix');
const caseFor = (r: Route, name: string, target: Target, ids: (kind: keyof TenantIds, i: number) => string | number, k: string | null, check: Case['check']): Case => ({
  name: `${name} [${label(r)}]`,
  method: r.method,
  path: pathFor(r.url, target, ids),
  key: k,
  body: bodyFor(r.method, r.url, exportPath()),
  check,
});

describe('authorization matrix over every registered route', () => {
  it('knows every route: each declares a scope or is a known public SDK route, and names its tenant', () => {
    expect(routes.length).toBeGreaterThan(40);
    const unclassified = routes
      .filter((r) => r.scope === undefined && !PUBLIC_ROUTES.has(label(r)) && !PUBLIC_ASSET_ROUTES.has(label(r)) && !isDocumentationRoute(label(r)))
      .map(label);
    expect(unclassified, 'routes without a scope that are not public SDK routes').toEqual([]);
    for (const r of personal()) {
      tenancyOf(r.url);
      idParams(r.url);
    }
    for (const p of PUBLIC_ROUTES) expect(routes.map(label), `public route ${p} is registered`).toContain(p);
  });

  it('no key, an unknown key and a revoked key: 401 on every personal-key route', async () => {
    const cases = personal().flatMap((r) => [
      caseFor(r, 'no key', tenantTarget(A), ownIds(A), null, (a) => isError(a, 401, 'not_authenticated')),
      caseFor(r, 'unknown key', tenantTarget(A), ownIds(A), 'phx_NotAKeyThisServerEverIssued0000000000000000', (a) => isError(a, 401, 'authentication_failed')),
      caseFor(r, 'revoked key', tenantTarget(A), ownIds(A), key.revoked, (a) => isError(a, 401, 'authentication_failed')),
    ]);
    expect(await failuresOf(cases)).toEqual([]);
  });

  it('a key without the scope a route declares: 403 naming the scope', async () => {
    const cases = personal().map((r) =>
      caseFor(r, 'wrong scope', tenantTarget(A), ownIds(A), lacking.get(r.scope!)!, (a) =>
        isError(a, 403, 'permission_denied') ?? (String(a.body?.detail).includes(`'${r.scope}'`) ? null : `detail does not name ${r.scope}`),
      ),
    );
    expect(await failuresOf(cases)).toEqual([]);
  });

  it("a key limited to project A, on project B's URL (path or token), and any key on another organization's: 403", async () => {
    const forbidden = (a: Answer) => isError(a, 403, 'permission_denied');
    const cases = personal().flatMap((r) => {
      const tenancy = tenancyOf(r.url);
      if (tenancy === 'global') return [];
      const out = [
        caseFor(r, 'key limited to A, other organization', C, ownIds(B), key.limitedToA, forbidden),
        caseFor(r, 'unlimited key, organization it is not a member of', C, ownIds(B), key.all, forbidden),
      ];
      if (tenancy !== 'organization') out.push(caseFor(r, "key limited to A, B's project", tenantTarget(B), ownIds(B), key.limitedToA, forbidden));
      return out;
    });
    expect(await failuresOf(cases)).toEqual([]);
  });

  it("project A's URL with object ids of project B: 404, never B's object", async () => {
    const cases = personal().flatMap((r) => {
      const kinds = idParams(r.url);
      if (kinds.length === 0 || tenancyOf(r.url) === 'global') return [];
      // Every mix of A's and B's ids with at least one of B's (export A with run B is the sharp one).
      const mixes = Array.from({ length: 2 ** kinds.length - 1 }, (_, m) => m + 1);
      return mixes.flatMap((mix) => {
        const ids = (kind: keyof TenantIds, i: number) => ((mix >> i) & 1 ? B.ids[kind] : A.ids[kind]);
        const which = kinds.map((k, i) => `${k}:${(mix >> i) & 1 ? 'B' : 'A'}`).join(',');
        // The unlimited key may reach B through the organization's URL (B belongs to it), not through A's.
        const keys = tenancyOf(r.url) === 'organization' ? [key.limitedToA] : [key.limitedToA, key.all];
        return keys.map((k) =>
          caseFor(r, `ids of B (${which}) with ${k === key.all ? 'unlimited key' : 'key limited to A'}`, tenantTarget(A), ids, k, (a) =>
            isError(a, 404, 'not_found'),
          ),
        );
      });
    });
    expect(await failuresOf(cases)).toEqual([]);
  });

  it("reads of project A's own objects with a key limited to A answer 200 and show nothing of B or C", async () => {
    const cases = personal()
      .filter((r) => r.method === 'GET')
      .map((r) =>
        caseFor(r, 'own read', tenantTarget(A), ownIds(A), key.limitedToA, (a) =>
          // Results of an experiment without exposures are PostHog's 400 no_data: allowed, but nothing else.
          a.status === 200 || (a.status === 400 && a.body?.code === 'no_data') ? null : `status ${a.status}: ${a.text.slice(0, 200)}`,
        ),
      );
    cases.push(
      { name: 'project @current', method: 'GET', path: '/api/projects/@current/', key: key.limitedToA, check: (a) => (a.body?.id === A.projectId ? null : a.text) },
      { name: 'organization @current', method: 'GET', path: '/api/organizations/@current/', key: key.limitedToA, check: (a) => (a.body?.id === A.organizationId ? null : a.text) },
    );
    expect(await failuresOf(cases)).toEqual([]);
  });

  it('the organization and the project listing show a limited key only its projects', async () => {
    const ids = (list: unknown) => (list as { id: number }[]).map((p) => p.id);
    const org = await send('GET', `/api/organizations/${A.organizationId}/`, key.limitedToA);
    expect(org.status).toBe(200);
    expect(ids(org.body!.projects)).toEqual([A.projectId]);
    expect(ids(org.body!.teams)).toEqual([A.projectId]);
    const list = await send('GET', '/api/projects/', key.limitedToA);
    expect(list.body!.count).toBe(1);
    expect(ids(list.body!.results)).toEqual([A.projectId]);
    // The unlimited key of the same user sees both projects of its organization, and not C.
    const full = await send('GET', `/api/organizations/${A.organizationId}/`, key.all);
    expect(ids(full.body!.projects)).toEqual([A.projectId, B.projectId]);
  });

  it('public SDK routes: no project key or an unknown one is 401 in the error shape', async () => {
    const publicRoutes = routes.filter((r) => PUBLIC_ROUTES.has(label(r)) && r.url !== '/_health');
    const payload = (apiKey?: string) => ({ ...(apiKey ? { api_key: apiKey } : {}), event: 'matrix', distinct_id: 'matrix' });
    const request = (r: Route, apiKey?: string): Pick<Case, 'method' | 'path' | 'body'> =>
      PUBLIC_TOKEN_QUERY_ROUTES.has(r.url)
        ? { method: 'GET', path: apiKey ? `${r.url}?token=${encodeURIComponent(apiKey)}` : r.url }
        : r.method === 'GET'
        ? { method: 'GET', path: `${r.url}?data=${encodeURIComponent(Buffer.from(JSON.stringify(payload(apiKey))).toString('base64'))}` }
        : { method: 'POST', path: r.url, body: payload(apiKey) };
    const cases: Case[] = publicRoutes.flatMap((r) => [
      { name: 'no project key', key: null, ...request(r), check: (a: Answer) => isError(a, 401, 'missing_api_key') },
      { name: 'unknown project key', key: null, ...request(r, 'phc_NotAKeyThisServerEverIssued'), check: (a: Answer) => isError(a, 401, 'invalid_api_key') },
    ]);
    // With A's key, flag evaluation answers only A's flags.
    for (const path of ['/decide/?v=3', '/flags/?v=2'])
      cases.push({ name: "A's project key", method: 'POST', path, key: null, body: { api_key: A.token, distinct_id: 'matrix' }, check: (a) => (a.status === 200 ? null : a.text) });
    expect(await failuresOf(cases)).toEqual([]);
  });

  it('nothing refused above was appended to the log', async () => {
    expect(await s.runtime.log.head()).toBe(headBefore);
  });

  it("object ids of project B inside a write's body under A's URL are refused and create nothing", async () => {
    const org = `/api/organizations/${A.organizationId}`;
    const cases: Case[] = [
      {
        name: 'organization-scope export created in B by a key limited to A',
        method: 'POST',
        path: `${org}/batch_exports/`,
        key: key.limitedToA,
        body: { ...(bodyFor('POST', '/api/organizations/:organization_id/batch_exports/', exportPath()) as object), team_id: B.projectId },
        check: (a) => isError(a, 400, 'invalid_input'),
      },
      {
        name: "flag in A whose condition names B's cohort",
        method: 'POST',
        path: `/api/projects/${A.projectId}/feature_flags/`,
        key: key.limitedToA,
        body: { key: 'matrix-cohort', filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: B.ids.cohort }], rollout_percentage: 100 }] } },
        check: (a) => (a.status === 400 ? null : `status ${a.status}: ${a.text.slice(0, 200)}`),
      },
      {
        name: "experiment in A linking B's saved metric",
        method: 'PATCH',
        path: `/api/projects/${A.projectId}/experiments/${A.ids.experiment}/`,
        key: key.limitedToA,
        body: { saved_metrics_ids: [{ id: B.ids.savedMetric, metadata: { type: 'primary' } }] },
        check: (a) => (a.status === 400 && a.text.includes(`Saved metric ${B.ids.savedMetric} does not exist`) ? null : `status ${a.status}: ${a.text.slice(0, 200)}`),
      },
    ];
    const head = await s.runtime.log.head();
    expect(await failuresOf(cases)).toEqual([]);
    expect(await s.runtime.log.head()).toBe(head);
  });
});
