/** How each route appears in the OpenAPI document beside its schemas: tag, operation id, error answers. */

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

/** The errors a route may answer, from what it declares: inputs (400), a personal key (401, 403), a path object (404). */
export function errorResponses(url: string, scope: string | undefined, hasInput: boolean, isPublic: boolean) {
  const out: Record<string, unknown> = {};
  if (hasInput || isPublic) out['400'] = errorResponse('Invalid input (validation_error) or a malformed request.');
  if (scope) {
    out['401'] = errorResponse('No personal API key, or an unknown or revoked one (authentication_error).');
    out['403'] = errorResponse(`The key lacks the \`${scope}\` scope, or does not reach this project or organization (permission_denied).`);
  } else if (isPublic) out['401'] = errorResponse('No project API key, or an unknown one (missing_api_key, invalid_api_key).');
  if (url.includes(':'))
    out['404'] = errorResponse(url.startsWith('/api/') ? 'No such object, or not in this project or organization (not_found).' : 'No such file or project key (not_found).');
  return out;
}

/** The document's tag for a route: the collection its path names (`feature_flags`, `experiments`, …). */
export function tagOf(url: string): string {
  const parts = url.split('/').filter((p) => p && !p.startsWith(':'));
  if (parts[0] !== 'api') return 'sdk';
  if (parts[1] === 'projects' || parts[1] === 'organizations') return parts[2] ?? parts[1];
  return parts[1];
}

/**
 * drf-spectacular's operation ids: the path's words and the action (`feature_flags_list`,
 * `experiments_results_retrieve`, `organizations_batch_exports_create`), so generated clients get
 * PostHog-like method names.
 */
export function operationIdOf(method: string, url: string): string {
  const segments = url.split('/').filter(Boolean);
  const scoped = (i: number) => segments[i + 1] === ':project_id' && i + 2 < segments.length;
  const words = segments
    // `/api/projects/:project_id/<more>` is named by <more>; outside /api/ the parameters name the file.
    .filter((p, i) => p !== 'api' && !(p === 'projects' && scoped(i)) && !p.startsWith('@') && (!p.startsWith(':') || segments[0] !== 'api'))
    .map((p) => p.replace(/^:/, '').replace(/[^A-Za-z0-9]+/g, '_'));
  const last = segments.at(-1) ?? '';
  const item = last.startsWith(':') || last.startsWith('@');
  // A custom action (a static last segment after an object id) is not a collection listing.
  const before = segments.at(-2) ?? '';
  const custom = !item && before.startsWith(':') && before !== ':project_id' && before !== ':organization_id';
  const read = item || custom || segments[0] !== 'api' ? 'retrieve' : 'list';
  const action = { GET: read, POST: 'create', PATCH: 'partial_update', PUT: 'update', DELETE: 'destroy' }[method] ?? method.toLowerCase();
  return `${words.join('_')}_${action}`;
}
