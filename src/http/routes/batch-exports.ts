import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../actor';
import type { BatchExportRow } from '../../../projections/exports';
import { invalidInput } from '../errors';
import { pageEnvelope } from '../pagination';
import { BackfillBody, CreateExportBody, UnpauseBody, UpdateExportBody } from '../schema/batch-exports';
import { NoContent, OrganizationId, pageQuery, paginated, ProjectId } from '../schema/common';
import { BatchExport, exportBody, LATEST_RUNS } from './batch-exports-body';
import { batchExportRunRoutes } from './batch-exports-runs';
import type { Parts } from '../runtime-parts';
import { AsOfQuery, asOfOf, orNotFound } from '../schema/as-of';
import type { AccessQueries } from '../../../projections/access-queries';

type Params = { project_id?: string; organization_id?: string; id?: string };

/**
 * The projects a request may act on. Project scope: the path's project (the auth plugin has
 * checked membership). Organization scope: the organization's projects the key may touch.
 */
async function projectsOf(access: AccessQueries, request: FastifyRequest): Promise<number[]> {
  const { project_id, organization_id } = request.params as Params;
  if (project_id !== undefined) return [Number(project_id)];
  const { rows } = await access.projectsOf([organization_id!], 10_000, 0);
  const filter = request.auth!.projectFilter;
  return rows.map((p) => p.id).filter((id) => !filter || filter.includes(id));
}

/**
 * At organization scope an export is created in `team_id` (PostHog's sample PATCH shows the
 * field), defaulting to the organization's first project the key can touch.
 */
async function projectForCreate(access: AccessQueries, request: FastifyRequest, team: { id: number; sent: string } | undefined): Promise<number> {
  const projects = await projectsOf(access, request);
  if ((request.params as Params).project_id !== undefined) return projects[0];
  if (team === undefined) {
    if (projects.length === 0) throw invalidInput('This organization has no project to create the batch export in.', 'team_id');
    return projects[0];
  }
  if (!projects.includes(team.id)) throw invalidInput(`Invalid pk "${team.sent}" - object does not exist.`, 'team_id');
  return team.id;
}

/**
 * Batch exports at both scopes (spec 4.2 and 4.3). Reads need `batch_export:read`; create,
 * update, delete and the actions (backfill, pause, unpause) need `batch_export:write`, as in
 * PostHog. Each route maps to one service command or one query.
 */
export const batchExportRoutes: FastifyPluginAsyncZod<Parts<'exports' | 'timeTravel', 'access'>> = async (app, parts) => {
  const { service, queries } = parts.exports;
  const access = parts.queries.access;
  const body = async (row: BatchExportRow) => exportBody(row, await queries.runs.latest(row.id, LATEST_RUNS));
  const read = { scope: 'batch_export:read' as const };
  const write = { scope: 'batch_export:write' as const };
  const exportId = z.string().meta({ description: 'Batch export id (UUID).' });

  for (const [base, scope] of [
    ['/api/projects/:project_id/batch_exports', z.object({ project_id: ProjectId })],
    ['/api/organizations/:organization_id/batch_exports', z.object({ organization_id: OrganizationId })],
  ] as const) {
    const params = scope;
    const one = scope.extend({ id: exportId });
    const where = base.includes(':organization_id') ? ' of the organization' : '';

    app.get(
      `${base}/`,
      { config: read, schema: { summary: `Lists batch exports${where}.`, params, querystring: z.object(pageQuery()), response: { 200: paginated(BatchExport) } } },
      async (request) => {
        const page = request.query;
        const { count, rows } = await service.list(await projectsOf(access, request), page.limit, page.offset);
        return pageEnvelope(request, page, count, await Promise.all(rows.map(body)));
      },
    );

    app.post(
      `${base}/`,
      { config: write, schema: { summary: 'Creates a batch export.', params, body: CreateExportBody, response: { 201: BatchExport } } },
      async (request, reply) => {
        const input = request.body;
        const row = await service.create(await projectForCreate(access, request, input.team), input, actorOf(request));
        return reply.status(201).send(await body(row));
      },
    );

    app.get(
      `${base}/:id/`,
      { config: read, schema: { summary: 'One batch export (`as_of`: as it stood then, with its runs as they stood).', params: one, querystring: AsOfQuery, response: { 200: BatchExport } } },
      async (request) => {
        const asOf = asOfOf(request.query);
        if (!asOf) return body(await service.get(await projectsOf(access, request), request.params.id));
        const row = await parts.timeTravel.batchExport(request.params.id, asOf);
        const projects = await projectsOf(access, request);
        // As the live read: a deleted export, or another project's, is not found.
        const visible = orNotFound(row && !row.deleted && projects.includes(row.project_id) ? row : undefined);
        return exportBody(visible, await parts.timeTravel.latestRuns(visible.id, LATEST_RUNS, asOf));
      },
    );

    app.patch(
      `${base}/:id/`,
      { config: write, schema: { summary: 'Changes a batch export (secret fields kept unless given).', params: one, body: UpdateExportBody, response: { 200: BatchExport } } },
      async (request) => body(await service.update(await projectsOf(access, request), request.params.id, request.body, actorOf(request))),
    );

    app.delete(
      `${base}/:id/`,
      { config: { ...write, docs: { response: { 204: NoContent } } }, schema: { summary: 'Deletes a batch export.', params: one } },
      async (request, reply) => {
        await service.delete(await projectsOf(access, request), request.params.id, actorOf(request));
        return reply.status(204).send();
      },
    );

    app.post(
      `${base}/:id/backfill/`,
      { config: write, schema: { summary: 'Schedules runs over a past interval.', params: one, body: BackfillBody, response: { 200: BatchExport } } },
      async (request) => body(await service.backfill(await projectsOf(access, request), request.params.id, request.body, actorOf(request))),
    );

    app.post(`${base}/:id/pause/`, { config: write, schema: { summary: 'Pauses a batch export.', params: one, response: { 200: BatchExport } } }, async (request) =>
      body(await service.pause(await projectsOf(access, request), request.params.id, actorOf(request))),
    );

    app.post(
      `${base}/:id/unpause/`,
      { config: write, schema: { summary: 'Resumes a batch export.', params: one, body: UnpauseBody, response: { 200: BatchExport } } },
      async (request) => body(await service.unpause(await projectsOf(access, request), request.params.id, request.body, actorOf(request))),
    );
  }

  await app.register(batchExportRunRoutes, parts);
};
