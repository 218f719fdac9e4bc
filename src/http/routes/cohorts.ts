import type { FastifyPluginAsync } from 'fastify';
import type { CohortRow } from '../../../projections/cohorts-queries';
import { notFoundError } from '../errors';
import { pageEnvelope, parsePage } from '../pagination';
import { userBody } from '../users';

type P = { Params: { project_id: string; id: string } };

/**
 * Cohorts, read-only for now (they are created as experiments' exposure cohorts): list, retrieve and
 * the persons in one, all with cohort:read. Shape as PostHog's Cohort; membership is computed from
 * the log as events arrive, so `is_calculating` is always false.
 */
export const cohortRoutes: FastifyPluginAsync = async (app) => {
  const { experiments, queries } = app.runtime;
  const cohorts = experiments.queries.cohorts;
  const body = (c: CohortRow) => ({
    id: c.id,
    name: c.name,
    description: c.description,
    groups: [],
    deleted: false,
    filters: c.filters,
    query: null,
    is_calculating: false,
    created_by: userBody(c.created_by ? queries.access.user(c.created_by) : null),
    created_at: c.created_at,
    last_calculation: null,
    errors_calculating: 0,
    count: c.count,
    is_static: false,
    experiment_set: c.experiment_id === null ? [] : [c.experiment_id],
  });
  const ids = (params: { project_id: string; id?: string }) => ({
    projectId: Number(params.project_id),
    id: /^\d{1,15}$/.test(params.id ?? '') ? Number(params.id) : -1,
  });
  const read = { config: { scope: 'cohort:read' as const } };
  const base = '/api/projects/:project_id/cohorts';

  app.get<P>(`${base}/`, read, async (request) => {
    const page = parsePage(request.query);
    const { count, rows } = cohorts.list(ids(request.params).projectId, page.limit, page.offset);
    return pageEnvelope(request, page, count, rows.map(body));
  });

  app.get<P>(`${base}/:id/`, read, async (request) => {
    const { projectId, id } = ids(request.params);
    const cohort = cohorts.byId(projectId, id);
    if (!cohort) throw notFoundError();
    return body(cohort);
  });

  /** The persons in the cohort now (PostHog's /cohorts/:id/persons/), ordered by uuid. */
  app.get<P>(`${base}/:id/persons/`, read, async (request) => {
    const { projectId, id } = ids(request.params);
    const cohort = cohorts.byId(projectId, id);
    if (!cohort) throw notFoundError();
    const page = parsePage(request.query);
    const persons = (await Promise.all(cohorts.members(projectId, id, page.limit, page.offset).map((uuid) => queries.ingestion.person(projectId, uuid))))
      .filter((p) => p !== undefined);
    return pageEnvelope(request, page, cohort.count, persons);
  });
};
