import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { reachableProjects } from '../auth';
import { ProjectBody, projectBody } from './projects';
import type { Parts } from '../runtime-parts';

/** PostHog's OrganizationBasic, as the user body nests it. */
const OrganizationBasic = z.object({ id: z.string(), name: z.string(), created_at: z.string() }).meta({ id: 'OrganizationBasic' });

/**
 * PostHog's User (`UserSerializer`) for `@me`, the fields SDKs and tools read: who the key belongs
 * to, its current organization and project (`team`), every organization it reaches, and the key's
 * own scopes. Passwords, staff flags and e-mail verification are not kept: false / null.
 */
const Me = z
  .object({
    id: z.number().int(),
    uuid: z.string(),
    distinct_id: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    pending_email: z.null(),
    is_email_verified: z.boolean(),
    has_password: z.boolean(),
    is_staff: z.boolean(),
    is_impersonated: z.boolean(),
    date_joined: z.string(),
    organization: OrganizationBasic.nullable().meta({ description: "The key's current organization (that of `team`)." }),
    organizations: z.array(OrganizationBasic),
    team: ProjectBody.nullable().meta({ description: "The key's current project, as `/api/projects/@current/` answers it." }),
    scopes: z.array(z.string()).meta({ description: 'The scopes of the personal API key the request was made with.', examples: [['feature_flag:read', 'experiment:write']] }),
  })
  .meta({ id: 'User' });

/** `/api/users/@me/`: the key's own user (PostHog asks for `user:read`). */
export const identityRoutes: FastifyPluginAsyncZod<Parts<never, 'access'>> = async (app, parts) => {
  const queries = parts.queries.access;
  app.get(
    '/api/users/@me/',
    { config: { scope: 'user:read' }, schema: { summary: "The personal API key's user, organizations, current project and scopes.", response: { 200: Me } } },
    async (request) => {
      const auth = request.auth!;
      const organizations = (await Promise.all(auth.organizationIds.map((id) => queries.organization(id)))).filter((o) => o !== undefined);
      const candidates = auth.projectFilter ? auth.projectFilter.map((id) => queries.project(id)) : organizations.length ? [queries.firstProjectOf(organizations[0].id)] : [];
      const listed = (await Promise.all(candidates)).filter((p) => p !== undefined);
      const team = reachableProjects(auth, listed)[0];
      const organization = organizations.find((o) => o.id === team?.organization_id) ?? organizations[0] ?? null;
      const basic = (o: { id: string; name: string; created_at: string }) => ({ id: o.id, name: o.name, created_at: o.created_at });
      const { user, key } = auth;
      return {
        id: user.id,
        uuid: user.uuid,
        distinct_id: user.distinct_id,
        first_name: user.first_name,
        last_name: user.last_name,
        email: user.email,
        pending_email: null,
        is_email_verified: false,
        has_password: false,
        is_staff: false,
        is_impersonated: false,
        date_joined: user.created_at,
        organization: organization ? basic(organization) : null,
        organizations: organizations.map(basic),
        team: team ? projectBody(team) : null,
        scopes: key.scopes,
      };
    },
  );
};
