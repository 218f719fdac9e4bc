import type { FastifyPluginAsync } from 'fastify';
import { projectBody } from './projects';

export const organizationRoutes: FastifyPluginAsync = async (app) => {
  const queries = app.runtime.queries.access;

  app.get<{ Params: { organization_id: string } }>(
    '/api/organizations/:organization_id/',
    { config: { scope: 'organization:read' } },
    async (request) => {
      const org = queries.organization(request.params.organization_id)!;
      const projects = queries.projectsOf([org.id], 1000, 0).rows.map(projectBody);
      return { id: org.id, name: org.name, created_at: org.created_at, projects, teams: projects };
    },
  );
};
