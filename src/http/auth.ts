import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { Scope } from '../../streams';
import type { PersonalKeyRow, ProjectRow, UserRow } from '../../projections/access-queries';
import { hashKey } from '../access';
import { authenticationFailed, forbidden, missingScope, notAuthenticated, notFoundError } from './errors';
import type { AccessQueries } from '../../projections/access-queries';

export interface AuthContext {
  user: UserRow;
  key: PersonalKeyRow;
  organizationIds: string[];
  /** Projects this key may touch: null = every project of its organizations. */
  projectFilter: number[] | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The personal-key scope this route requires; routes without one are public. */
    scope?: Scope;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1] : header.trim();
  }
  const q = request.query as Record<string, unknown> | undefined;
  if (typeof q?.personal_api_key === 'string') return q.personal_api_key;
  const b = request.body as Record<string, unknown> | undefined;
  if (b && typeof b === 'object' && typeof b.personal_api_key === 'string') return b.personal_api_key;
  return undefined;
}

/**
 * The projects of the given organizations that this key may touch, by id: every organization-level
 * answer (organization bodies, project listings) is cut down to these.
 */
export function reachableProjects(auth: AuthContext, projects: readonly ProjectRow[]): ProjectRow[] {
  return projects.filter((p) => auth.organizationIds.includes(p.organization_id) && (!auth.projectFilter || auth.projectFilter.includes(p.id)));
}

/** A write scope also grants the matching read scope, as in PostHog. */
export function hasScope(scopes: readonly string[], needed: Scope): boolean {
  if (scopes.includes('*') || scopes.includes(needed)) return true;
  const [object, action] = needed.split(':');
  return action === 'read' && scopes.includes(`${object}:write`);
}

/**
 * Bearer personal-key authentication with per-route scopes, and membership of the `:project_id` /
 * `:organization_id` in the path (the key's user must belong; a project-limited key must list it).
 */
export const authPlugin = fp<{ access: AccessQueries }>(
  async (app, { access: queries }) => {
    app.decorateRequest('auth', null);
    const authenticate = async (request: FastifyRequest, scope: Scope) => {
      const presented = presentedKey(request);
      if (!presented) throw notAuthenticated();
      const key = await queries.keyBySecureValue(hashKey(presented));
      if (!key || key.revoked_at) throw authenticationFailed();
      const user = await queries.user(key.user_id);
      if (!user) throw authenticationFailed();
      if (!hasScope(key.scopes, scope)) throw missingScope(scope);
      // A key limited to some projects reaches only the organizations that hold one of them, so
      // an organization-level route never opens a door to a project outside the list.
      const scopedProjects = key.scoped_projects;
      const scopedOrganizations = scopedProjects
        ? new Set((await Promise.all(scopedProjects.map((p) => queries.project(p)))).map((p) => p?.organization_id))
        : null;
      const organizationIds = (await queries.organizationsOf(user.id))
        .filter((id) => !key.scoped_organizations || key.scoped_organizations.includes(id))
        .filter((id) => !scopedOrganizations || scopedOrganizations.has(id));
      request.auth = { user, key, organizationIds, projectFilter: scopedProjects };

      const params = (request.params ?? {}) as Record<string, string | undefined>;
      if (params.organization_id !== undefined) {
        const org = await queries.organization(params.organization_id === '@current' ? (organizationIds[0] ?? '') : params.organization_id);
        if (!org) throw notFoundError();
        if (!organizationIds.includes(org.id)) throw forbidden('You do not have access to this organization.');
        params.organization_id = org.id;
      }
      if (params.project_id !== undefined) {
        const projectId =
          params.project_id === '@current'
            ? (key.scoped_projects?.[0] ?? (await queries.firstProjectOf(organizationIds[0] ?? ''))?.id ?? null)
            : /^\d{1,15}$/.test(params.project_id)
              ? Number(params.project_id)
              : null;
        const project = projectId === null ? undefined : await queries.project(projectId);
        if (!project) throw notFoundError();
        if (!organizationIds.includes(project.organization_id) || (key.scoped_projects && !key.scoped_projects.includes(project.id)))
          throw forbidden('API key does not have access to the requested project.');
        params.project_id = String(project.id);
      }
    };
    // A callback hook, not an async one: every request passes here, the flag and capture paths
    // (no scope) included, and those then pay for no promise.
    app.addHook('preValidation', (request, _reply, done) => {
      const scope = request.routeOptions.config?.scope;
      if (!scope) return done();
      authenticate(request, scope).then(() => done(), done);
    });
  },
  { name: 'auth' },
);
