import type { FastifyPluginAsync } from 'fastify';
import { reachableProjects } from '../auth';
import { projectBody } from './projects';

/** Far above any real organization; the body lists them all, as PostHog's does. */
const MAX_PROJECTS = 100_000;

export const organizationRoutes: FastifyPluginAsync = async (app) => {
  const queries = app.runtime.queries.access;

  // `@current` is resolved by the auth plugin; the body shows only the projects the key may touch,
  // so a key limited to one project never learns another's name, id or api_token.
  app.get<{ Params: { organization_id: string } }>(
    '/api/organizations/:organization_id/',
    { config: { scope: 'organization:read' } },
    async (request) => {
      const org = (await queries.organization(request.params.organization_id))!;
      const projects = reachableProjects(request.auth!, (await queries.projectsOf([org.id], MAX_PROJECTS, 0)).rows).map(projectBody);
      return { id: org.id, name: org.name, created_at: org.created_at, projects, teams: projects };
    },
  );
};
