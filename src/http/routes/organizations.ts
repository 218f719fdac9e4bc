import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { reachableProjects } from '../auth';
import { OrganizationId } from '../schema/common';
import { ProjectBody, projectBody } from './projects';
import type { Parts } from '../runtime-parts';

/** Far above any real organization; the body lists them all, as PostHog's does. */
const MAX_PROJECTS = 100_000;

const Organization = z
  .object({
    id: z.string(),
    name: z.string(),
    created_at: z.string(),
    projects: z.array(ProjectBody).meta({ description: 'The projects of the organization this key may touch.' }),
    teams: z.array(ProjectBody).meta({ description: 'Same as `projects` (PostHog\'s older name).' }),
  })
  .meta({ id: 'Organization' });

export const organizationRoutes: FastifyPluginAsyncZod<Parts<never, 'access'>> = async (app, parts) => {
  const queries = parts.queries.access;

  // `@current` is resolved by the auth plugin; the body shows only the projects the key may touch,
  // so a key limited to one project never learns another's name, id or api_token.
  app.get(
    '/api/organizations/:organization_id/',
    {
      config: { scope: 'organization:read' },
      schema: {
        summary: "One organization (`@current`: the key's current one) with the projects the key reaches.",
        params: z.object({ organization_id: OrganizationId }),
        response: { 200: Organization },
      },
    },
    async (request) => {
      const org = (await queries.organization(request.params.organization_id))!;
      const projects = reachableProjects(request.auth!, (await queries.projectsOf([org.id], MAX_PROJECTS, 0)).rows).map(projectBody);
      return { id: org.id, name: org.name, created_at: org.created_at, projects, teams: projects };
    },
  );
};
