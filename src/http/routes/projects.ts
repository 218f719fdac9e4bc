import type { FastifyPluginAsync } from 'fastify';
import type { ProjectRow } from '../../../projections/access-queries';
import { reachableProjects, type AuthContext } from '../auth';
import { pageEnvelope, parsePage } from '../pagination';

export const projectBody = (p: ProjectRow) => ({
  id: p.id,
  organization: p.organization_id,
  name: p.name,
  api_token: p.api_token,
  created_at: p.created_at,
  timezone: 'UTC',
  is_demo: false,
});

export const projectRoutes: FastifyPluginAsync = async (app) => {
  const queries = app.runtime.queries.access;

  app.get('/api/projects/', { config: { scope: 'project:read' } }, async (request) => {
    const page = parsePage(request.query);
    const auth = request.auth!;
    const { count, rows } = auth.projectFilter ? scoped(auth, page) : queries.projectsOf(auth.organizationIds, page.limit, page.offset);
    return pageEnvelope(request, page, count, rows.map(projectBody));
  });

  app.get<{ Params: { project_id: string } }>(
    '/api/projects/:project_id/',
    { config: { scope: 'project:read' } },
    async (request) => projectBody(queries.project(Number(request.params.project_id))!),
  );

  function scoped(auth: AuthContext, page: { limit: number; offset: number }) {
    const listed = auth.projectFilter!.map((id) => queries.project(id)).filter((p): p is ProjectRow => !!p);
    const rows = reachableProjects(auth, listed).sort((a, b) => a.id - b.id);
    return { count: rows.length, rows: rows.slice(page.offset, page.offset + page.limit) };
  }
};
