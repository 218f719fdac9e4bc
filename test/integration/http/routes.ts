import type { RouteSummary } from '../../../src/http/app';
import type { Scope } from '../../../streams';
import type { TenantIds } from './tenants';

/** One method of one registered route, with the personal-key scope it declares (none: public). */
export interface Route {
  method: string;
  url: string;
  scope: Scope | undefined;
}

/** Every registered route, once per method; HEAD and OPTIONS share their GET/POST's rules or have none. */
export function routesOf(table: readonly RouteSummary[]): Route[] {
  const routes: Route[] = [];
  for (const r of table) {
    if (r.method === 'HEAD' || r.method === 'OPTIONS') continue;
    if (routes.some((x) => x.method === r.method && x.url === r.url)) continue;
    routes.push({ method: r.method, url: r.url, scope: (r.config as { scope?: Scope } | undefined)?.scope });
  }
  return routes;
}

/** Routes that declare no scope on purpose: the SDK endpoints (project key in the body) and health. */
export const PUBLIC_ROUTES = new Set([
  'GET /_health',
  ...['/capture', '/e', '/i/v0/e', '/track', '/engage', '/batch'].flatMap((p) => [`GET ${p}`, `POST ${p}`]),
  'POST /decide',
  'POST /flags',
  'POST /s',
  'GET /api/surveys',
  'GET /api/early_access_features',
]);

/** Public routes posthog-js loads by URL: the project key is in the path (404 when unknown), or none at all. */
export const PUBLIC_ASSET_ROUTES = new Set(
  ['/array/:token/config', '/array/:token/config.js', '/array/:token/array.js', '/static/:file', '/static/:version/:file', '/', '/console/:file'].map((p) => `GET ${p}`),
);

/** The OpenAPI document and its Swagger UI page (with the page's assets): public, like drf-spectacular's defaults. */
export const isDocumentationRoute = (label: string): boolean => label === 'GET /api/schema/' || label.startsWith('GET /api/schema/swagger-ui');

/** Public SDK routes that take the project key as `?token=` (posthog-js's surveys and early access lists). */
export const PUBLIC_TOKEN_QUERY_ROUTES = new Set(['/api/surveys', '/api/early_access_features']);

/** Query parameters a route cannot answer without (else its 400 would stand in the way of the matrix). */
export const REQUIRED_QUERIES: Readonly<Record<string, string>> = {
  '/api/projects/:project_id/feature_flags/evaluation_reasons/': 'distinct_id=matrix-person',
  '/api/projects/:project_id/experiments/:id/exposures/': 'distinct_id=matrix-person',
};

/** Personal-key routes that name their project by the project key in `?token=` instead of the path. */
export const TOKEN_ROUTES = new Set(['/flags/definitions', '/api/feature_flag/local_evaluation']);
/** Personal-key routes that name no project or organization: they answer over everything the key reaches. */
export const GLOBAL_ROUTES = new Set(['/api/projects/', '/api/users/@me/', '/api/personal_api_keys/', '/api/personal_api_keys/:id/', '/api/personal_api_keys/:id/roll/']);

/** Where a request points: the project (path or token) and organization, and the ids of its objects. */
export interface Target {
  projectId: number | string;
  organizationId: string;
  token: string;
}

type IdKind = keyof TenantIds;
/** The object kind a path parameter names, from the collection segment in front of it. */
const ID_KINDS: Record<string, IdKind> = {
  'feature_flags/:id': 'flag',
  'experiments/:id': 'experiment',
  'cohorts/:id': 'cohort',
  'batch_exports/:id': 'batchExport',
  'persons/:id': 'person',
  'runs/:run_id': 'run',
  'session_recordings/:session_id': 'recording',
  'surveys/:id': 'survey',
  'early_access_feature/:id': 'earlyAccessFeature',
  'experiment_saved_metrics/:id': 'savedMetric',
  'actions/:id': 'action',
  'personal_api_keys/:id': 'personalKey',
};

/** The object-id parameters of a route, in path order. A parameter nobody taught this table fails loudly. */
export function idParams(url: string): IdKind[] {
  const segments = url.split('/');
  const kinds: IdKind[] = [];
  segments.forEach((segment, i) => {
    if (!segment.startsWith(':') || segment === ':project_id' || segment === ':organization_id') return;
    const kind = ID_KINDS[`${segments[i - 1]}/${segment}`];
    if (!kind) throw new Error(`route ${url}: no object kind for ${segments[i - 1]}/${segment}; teach ID_KINDS in test/integration/http/routes.ts`);
    kinds.push(kind);
  });
  return kinds;
}

/** How a route picks its tenant; a personal-key route that fits none fails loudly. */
export function tenancyOf(url: string): 'project' | 'organization' | 'token' | 'global' {
  if (url.includes(':project_id')) return 'project';
  if (url.includes(':organization_id')) return 'organization';
  if (TOKEN_ROUTES.has(url)) return 'token';
  if (GLOBAL_ROUTES.has(url)) return 'global';
  throw new Error(`route ${url} names no project, organization or token; classify it in test/integration/http/routes.ts`);
}

/** The concrete path (with query) of a route for a target, taking each object id from `idsFor(kind)`. */
export function pathFor(url: string, target: Target, idsFor: (kind: IdKind, index: number) => string | number): string {
  let index = 0;
  const segments = url.split('/').map((segment, i, all) => {
    if (segment === ':project_id') return String(target.projectId);
    if (segment === ':organization_id') return target.organizationId;
    if (segment.startsWith(':')) return encodeURIComponent(String(idsFor(ID_KINDS[`${all[i - 1]}/${segment}`], index++)));
    return segment;
  });
  const path = segments.join('/');
  if (REQUIRED_QUERIES[url]) return `${path}?${REQUIRED_QUERIES[url]}`;
  return TOKEN_ROUTES.has(url) ? `${path}?token=${encodeURIComponent(target.token)}` : path;
}

/**
 * A body each write route would accept from a key allowed to make it, so a refusal in the matrix
 * comes from authorization or ownership, never from validation.
 */
export function bodyFor(method: string, url: string, exportPath: string): unknown {
  if (method === 'GET' || method === 'DELETE') return undefined;
  const tail = url.replace(/^\/api\/(projects\/:project_id|organizations\/:organization_id)\//, '');
  const hour = (h: number) => new Date(Math.floor(Date.now() / 3_600_000 - h) * 3_600_000).toISOString();
  const bodies: Record<string, unknown> = {
    'POST feature_flags/': { key: 'matrix-new-flag', name: 'matrix' },
    'PATCH feature_flags/:id/': { name: 'matrix-renamed' },
    'POST experiments/': { name: 'matrix', feature_flag_key: 'matrix-new-exp' },
    'PATCH experiments/:id/': { name: 'matrix-renamed' },
    'POST batch_exports/': { name: 'matrix', interval: 'hour', destination: { type: 'File', config: { path: exportPath } } },
    'PATCH batch_exports/:id/': { name: 'matrix-renamed' },
    'POST batch_exports/:id/backfill/': { start_at: hour(30), end_at: hour(29) },
    'POST surveys/': { name: 'matrix', type: 'api' },
    'PATCH surveys/:id/': { name: 'matrix-renamed' },
    'POST early_access_feature/': { name: 'matrix eaf', stage: 'concept' },
    'PATCH early_access_feature/:id/': { name: 'matrix-renamed' },
    'POST experiment_saved_metrics/': { name: 'matrix saved', query: { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: 'matrix' }] } },
    'PATCH experiment_saved_metrics/:id/': { name: 'matrix-renamed' },
    'POST actions/': { name: 'matrix action', steps: [{ event: 'matrix' }] },
    'PATCH actions/:id/': { name: 'matrix-renamed' },
  };
  return bodies[`${method} ${tail}`] ?? {};
}
