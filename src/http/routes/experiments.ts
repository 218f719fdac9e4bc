import type { FastifyPluginAsync } from 'fastify';
import { actorOf } from '../actor';
import { bodyObject } from '../json-body';
import type { ExperimentRow } from '../../../projections/experiments-queries';
import { notFoundError } from '../errors';
import { pageEnvelope, parsePage } from '../pagination';
import { userBody } from '../users';

type P = { Params: { project_id: string; id: string } };

/** Draft until started, running until ended, then complete (compat §4); read-only, beside the spec's fields. */
const statusOf = (e: ExperimentRow) => (e.start_date === null ? 'draft' : e.end_date === null ? 'running' : 'complete');

/**
 * PostHog-style experiments (spec §4.1). Scopes: experiment:read for list, retrieve, results,
 * secondary_results and requires_flag_implementation (they only read); experiment:write for create,
 * update, delete and create_exposure_cohort_for_experiment (it writes the experiment; the cohort
 * it creates belongs to the experiment, as in PostHog, which asks for experiment:write only).
 */
export const experimentRoutes: FastifyPluginAsync = async (app) => {
  const { experiments, queries } = app.runtime;
  const { service, results } = experiments;
  const body = async (e: ExperimentRow) => ({
    id: e.id,
    name: e.name,
    description: e.description,
    start_date: e.start_date,
    end_date: e.end_date,
    feature_flag_key: e.feature_flag_key,
    feature_flag: {
      id: e.feature_flag.id,
      team_id: e.feature_flag.project_id,
      name: e.feature_flag.name,
      key: e.feature_flag.key,
      filters: e.feature_flag.filters,
      deleted: e.feature_flag.deleted,
      active: e.feature_flag.active,
      ensure_experience_continuity: e.feature_flag.ensure_experience_continuity,
    },
    exposure_cohort: e.exposure_cohort,
    parameters: e.parameters,
    secondary_metrics: e.secondary_metrics,
    filters: e.filters,
    archived: e.archived,
    created_by: userBody(e.created_by ? await queries.access.user(e.created_by) : null),
    created_at: e.created_at,
    updated_at: e.updated_at,
    status: statusOf(e),
  });
  // The auth plugin has already resolved project_id; a non-numeric experiment id matches nothing.
  const ids = (params: { project_id: string; id?: string }) => ({
    projectId: Number(params.project_id),
    id: /^\d{1,15}$/.test(params.id ?? '') ? Number(params.id) : -1,
  });
  const read = { config: { scope: 'experiment:read' as const } };
  const write = { config: { scope: 'experiment:write' as const } };
  const base = '/api/projects/:project_id/experiments';

  app.get<P>(`${base}/`, read, async (request) => {
    const page = parsePage(request.query);
    const archived = (request.query as Record<string, string | undefined>).archived === 'true';
    const { count, rows } = await experiments.queries.experiments.list(ids(request.params).projectId, page.limit, page.offset, archived);
    return pageEnvelope(request, page, count, await Promise.all(rows.map(body)));
  });

  app.post<P>(`${base}/`, write, async (request, reply) => {
    const created = await service.create(ids(request.params).projectId, bodyObject(request.body), actorOf(request));
    return reply.status(201).send(await body(created));
  });

  // Registered before `/:id/` routes; find-my-way prefers the static segment anyway.
  app.get<P>(`${base}/requires_flag_implementation/`, read, async (request) =>
    results.requiresFlagImplementation(ids(request.params).projectId, request.query as Record<string, unknown>),
  );

  app.get<P>(`${base}/:id/`, read, async (request) => {
    const { projectId, id } = ids(request.params);
    const experiment = await experiments.queries.experiments.byId(projectId, id);
    if (!experiment) throw notFoundError();
    return body(experiment);
  });

  app.patch<P>(`${base}/:id/`, write, async (request) => {
    const { projectId, id } = ids(request.params);
    return body(await service.update(projectId, id, bodyObject(request.body), actorOf(request)));
  });

  app.delete<P>(`${base}/:id/`, write, async (request, reply) => {
    const { projectId, id } = ids(request.params);
    await service.delete(projectId, id, actorOf(request));
    return reply.status(204).send();
  });

  app.post<P>(`${base}/:id/create_exposure_cohort_for_experiment/`, write, async (request) => {
    const { projectId, id } = ids(request.params);
    return body(await service.createExposureCohort(projectId, id, actorOf(request)));
  });

  app.get<P>(`${base}/:id/results/`, read, async (request) => {
    const { projectId, id } = ids(request.params);
    return results.primary(projectId, id);
  });

  app.get<P>(`${base}/:id/secondary_results/`, read, async (request) => {
    const { projectId, id } = ids(request.params);
    return results.secondary(projectId, id);
  });
};
