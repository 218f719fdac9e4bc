import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SavedMetricRow } from '../../../projections/experiment-saved-metrics-queries';
import { actorOf } from '../actor';
import { pageEnvelope } from '../pagination';
import { NoContent, numericId, pageQuery, paginated, ProjectObjectParams, ProjectParams } from '../schema/common';
import { AsOfQuery, asOfOf, orNotFound } from '../schema/as-of';
import { CreateSavedMetricBody, SavedMetric, UpdateSavedMetricBody } from '../schema/experiment-saved-metrics';
import { userBody } from '../users';
import type { Parts } from '../runtime-parts';

/**
 * Saved (shared) experiment metrics at PostHog's path `experiment_saved_metrics/`, with the
 * experiments' scopes (experiment:read / experiment:write), as the brief of this service asks;
 * an experiment links them with `saved_metrics_ids`.
 */
export const experimentSavedMetricRoutes: FastifyPluginAsyncZod<Parts<'experiments' | 'timeTravel', 'access'>> = async (app, { experiments, queries, timeTravel }) => {
  const service = experiments.savedMetrics;
  const body = async (m: SavedMetricRow): Promise<z.output<typeof SavedMetric>> => ({
    id: m.id,
    name: m.fields.name,
    description: m.fields.description,
    query: m.fields.query,
    created_by: userBody(m.created_by ? await queries.access.user(m.created_by) : null),
    created_at: m.created_at,
    updated_at: m.updated_at,
    tags: m.fields.tags,
  });
  // The auth plugin has already resolved project_id; a non-numeric id matches nothing.
  const ids = (params: { project_id: string; id?: string }) => ({ projectId: Number(params.project_id), id: numericId(params.id) });
  const read = { scope: 'experiment:read' as const };
  const write = { scope: 'experiment:write' as const };
  const base = '/api/projects/:project_id/experiment_saved_metrics';

  app.get(
    `${base}/`,
    { config: read, schema: { summary: 'Lists saved experiment metrics (by name).', params: ProjectParams, querystring: z.object(pageQuery()), response: { 200: paginated(SavedMetric) } } },
    async (request) => {
      const page = request.query;
      const { count, rows } = await experiments.queries.savedMetrics.list(ids(request.params).projectId, page.limit, page.offset);
      return pageEnvelope(request, page, count, await Promise.all(rows.map(body)));
    },
  );

  app.post(
    `${base}/`,
    { config: write, schema: { summary: 'Saves an experiment metric to share between experiments.', params: ProjectParams, body: CreateSavedMetricBody, response: { 201: SavedMetric } } },
    async (request, reply) => reply.status(201).send(await body(await service.create(ids(request.params).projectId, request.body, actorOf(request)))),
  );

  app.get(
    `${base}/:id/`,
    { config: read, schema: { summary: 'One saved experiment metric (`as_of`: as it stood then).', params: ProjectObjectParams, querystring: AsOfQuery, response: { 200: SavedMetric } } },
    async (request) => {
      const { projectId, id } = ids(request.params);
      const asOf = asOfOf(request.query);
      return body(asOf ? orNotFound(await timeTravel.savedMetric(projectId, id, asOf)) : await service.get(projectId, id));
    },
  );

  app.patch(
    `${base}/:id/`,
    {
      config: write,
      schema: { summary: 'Changes a saved metric; experiments linking it read the new query.', params: ProjectObjectParams, body: UpdateSavedMetricBody, response: { 200: SavedMetric } },
    },
    async (request) => {
      const { projectId, id } = ids(request.params);
      return body(await service.update(projectId, id, request.body, actorOf(request)));
    },
  );

  app.delete(
    `${base}/:id/`,
    { config: { ...write, docs: { response: { 204: NoContent } } }, schema: { summary: 'Deletes a saved metric and its links to experiments.', params: ProjectObjectParams } },
    async (request, reply) => {
      const { projectId, id } = ids(request.params);
      await service.delete(projectId, id, actorOf(request));
      return reply.status(204).send();
    },
  );
};
