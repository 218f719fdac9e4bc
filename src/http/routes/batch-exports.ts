import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { actorOf } from '../actor';
import type { BatchExportRow } from '../../../projections/exports';
import { invalidInput } from '../errors';
import { pageEnvelope, parsePage } from '../pagination';
import { exportBody, LATEST_RUNS } from './batch-exports-body';
import { batchExportRunRoutes } from './batch-exports-runs';

type Params = { project_id?: string; organization_id?: string; id: string };
type Req = FastifyRequest<{ Params: Params }>;


const bodyOf = (request: FastifyRequest): Record<string, unknown> => {
  const body = request.body ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidInput('Invalid data. Expected a dictionary.', null);
  return body as Record<string, unknown>;
};

/**
 * The projects a request may act on. Project scope: the path's project (the auth plugin has
 * checked membership). Organization scope: the organization's projects the key may touch.
 */
async function projectsOf(app: FastifyInstance, request: Req): Promise<number[]> {
  const { project_id, organization_id } = request.params;
  if (project_id !== undefined) return [Number(project_id)];
  const { rows } = await app.runtime.queries.access.projectsOf([organization_id!], 10_000, 0);
  const filter = request.auth!.projectFilter;
  return rows.map((p) => p.id).filter((id) => !filter || filter.includes(id));
}

/**
 * At organization scope an export is created in `team_id` (PostHog's sample PATCH shows the
 * field), defaulting to the organization's first project the key can touch.
 */
async function projectForCreate(app: FastifyInstance, request: Req, body: Record<string, unknown>): Promise<number> {
  const projects = await projectsOf(app, request);
  if (request.params.project_id !== undefined) return projects[0];
  if (body.team_id === undefined || body.team_id === null) {
    if (projects.length === 0) throw invalidInput('This organization has no project to create the batch export in.', 'team_id');
    return projects[0];
  }
  const teamId = typeof body.team_id === 'string' && /^\d+$/.test(body.team_id) ? Number(body.team_id) : body.team_id;
  if (typeof teamId !== 'number' || !projects.includes(teamId)) throw invalidInput(`Invalid pk "${String(body.team_id)}" - object does not exist.`, 'team_id');
  return teamId;
}

/**
 * Batch exports at both scopes (spec 4.2 and 4.3). Reads need `batch_export:read`; create,
 * update, delete and the actions (backfill, pause, unpause) need `batch_export:write`, as in
 * PostHog. Each route maps to one service command or one query.
 */
export const batchExportRoutes: FastifyPluginAsync = async (app) => {
  const { service, queries } = app.runtime.exports;
  const body = async (row: BatchExportRow) => exportBody(row, await queries.runs.latest(row.id, LATEST_RUNS));
  const read = { config: { scope: 'batch_export:read' as const } };
  const write = { config: { scope: 'batch_export:write' as const } };

  for (const base of ['/api/projects/:project_id/batch_exports', '/api/organizations/:organization_id/batch_exports']) {
    app.get<{ Params: Params }>(`${base}/`, read, async (request) => {
      const page = parsePage(request.query);
      const { count, rows } = await service.list(await projectsOf(app, request), page.limit, page.offset);
      return pageEnvelope(request, page, count, await Promise.all(rows.map(body)));
    });

    app.post<{ Params: Params }>(`${base}/`, write, async (request, reply) => {
      const input = bodyOf(request);
      const row = await service.create(await projectForCreate(app, request, input), input, actorOf(request));
      return reply.status(201).send(await body(row));
    });

    app.get<{ Params: Params }>(`${base}/:id/`, read, async (request) => body(await service.get(await projectsOf(app, request), request.params.id)));

    app.patch<{ Params: Params }>(`${base}/:id/`, write, async (request) =>
      body(await service.update(await projectsOf(app, request), request.params.id, bodyOf(request), actorOf(request))),
    );

    app.delete<{ Params: Params }>(`${base}/:id/`, write, async (request, reply) => {
      await service.delete(await projectsOf(app, request), request.params.id, actorOf(request));
      return reply.status(204).send();
    });

    app.post<{ Params: Params }>(`${base}/:id/backfill/`, write, async (request) =>
      body(await service.backfill(await projectsOf(app, request), request.params.id, bodyOf(request), actorOf(request))),
    );

    app.post<{ Params: Params }>(`${base}/:id/pause/`, write, async (request) =>
      body(await service.pause(await projectsOf(app, request), request.params.id, actorOf(request))),
    );

    app.post<{ Params: Params }>(`${base}/:id/unpause/`, write, async (request) =>
      body(await service.unpause(await projectsOf(app, request), request.params.id, bodyOf(request), actorOf(request))),
    );
  }

  await app.register(batchExportRunRoutes);
};
