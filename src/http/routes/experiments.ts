import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ExperimentRow } from '../../../projections/experiments-queries';
import type { SavedMetricLinkRow } from '../../../projections/experiment-saved-metrics-queries';
import { actorOf } from '../actor';
import { notFoundError } from '../errors';
import { pageEnvelope } from '../pagination';
import { JsonObject, NoContent, numericId, pageQuery, paginated, ProjectObjectParams, ProjectParams, UserBasic } from '../schema/common';
import { CreateExperimentBody, UpdateExperimentBody } from '../schema/experiments';
import { currentFieldsBody, ExperimentCurrentFields } from '../schema/experiment-current-fields';
import { userBody } from '../users';
import type { Parts } from '../runtime-parts';
import { AsOfQuery, asOfOf } from '../schema/as-of';

/** Draft until started, running until ended, then complete (compat §4); read-only, beside the spec's fields. */
const notFound = (): never => {
  throw notFoundError();
};

const statusOf = (e: ExperimentRow) => (e.start_date === null ? 'draft' : e.end_date === null ? 'running' : 'complete');

const Experiment = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    start_date: z.string().nullable(),
    end_date: z.string().nullable(),
    feature_flag_key: z.string(),
    feature_flag: z.object({
      id: z.number().int(),
      team_id: z.number().int(),
      name: z.string(),
      key: z.string(),
      filters: JsonObject,
      deleted: z.boolean(),
      active: z.boolean(),
      ensure_experience_continuity: z.boolean(),
    }),
    exposure_cohort: z.number().int().nullable(),
    parameters: z.unknown(),
    secondary_metrics: z.unknown(),
    filters: z.unknown(),
    archived: z.boolean(),
    created_by: UserBasic.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    status: z.enum(['draft', 'running', 'complete']),
    ...ExperimentCurrentFields,
  })
  .meta({ id: 'Experiment' });

const Results = z
  .object({ result: z.unknown().meta({ description: 'Per-variant counts, probabilities and significance (PostHog\'s shape).' }), last_refresh: z.string(), is_cached: z.boolean() })
  .meta({ id: 'ExperimentResults' });

/**
 * PostHog-style experiments (spec §4.1). Scopes: experiment:read for list, retrieve, results,
 * secondary_results and requires_flag_implementation (they only read); experiment:write for create,
 * update, delete and create_exposure_cohort_for_experiment (it writes the experiment; the cohort
 * it creates belongs to the experiment, as in PostHog, which asks for experiment:write only).
 */
export const experimentRoutes: FastifyPluginAsyncZod<Parts<'experiments' | 'timeTravel', 'access'>> = async (app, { experiments, queries, timeTravel }) => {
  const { service, results } = experiments;
  /** `links`: as they stood, for `as_of`; else the experiment's links now. */
  const body = async (e: ExperimentRow, links?: SavedMetricLinkRow[]): Promise<z.output<typeof Experiment>> => ({
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
    ...currentFieldsBody(e, links ?? (await experiments.queries.savedMetrics.linksOf(e.project_id, e.id))),
  });
  // The auth plugin has already resolved project_id; a non-numeric experiment id matches nothing.
  const ids = (params: { project_id: string; id?: string }) => ({ projectId: Number(params.project_id), id: numericId(params.id) });
  const read = { scope: 'experiment:read' as const };
  const write = { scope: 'experiment:write' as const };
  const base = '/api/projects/:project_id/experiments';
  const one = { params: ProjectObjectParams };

  app.get(
    `${base}/`,
    {
      config: read,
      schema: {
        summary: 'Lists experiments.',
        params: ProjectParams,
        querystring: z.object({ ...pageQuery(), archived: z.string().optional().meta({ description: '`true`: the archived ones instead.' }) }),
        response: { 200: paginated(Experiment) },
      },
    },
    async (request) => {
      const { archived, ...page } = request.query;
      const { count, rows } = await experiments.queries.experiments.list(ids(request.params).projectId, page.limit, page.offset, archived === 'true');
      return pageEnvelope(request, page, count, await Promise.all(rows.map((r) => body(r))));
    },
  );

  app.post(
    `${base}/`,
    { config: write, schema: { summary: 'Creates an experiment and its feature flag.', params: ProjectParams, body: CreateExperimentBody, response: { 201: Experiment } } },
    async (request, reply) => {
      const created = await service.create(ids(request.params).projectId, request.body, actorOf(request));
      return reply.status(201).send(await body(created));
    },
  );

  // Registered before `/:id/` routes; find-my-way prefers the static segment anyway.
  app.get(
    `${base}/requires_flag_implementation/`,
    {
      config: read,
      schema: {
        summary: 'Whether the metric events lack the `$feature/<key>` property (last 7 days).',
        params: ProjectParams,
        querystring: z.looseObject({
          feature_flag_key: z.string().optional(),
          events: z.string().optional().meta({ description: 'JSON list of `{id}` events, as PostHog sends it.' }),
          actions: z.string().optional(),
        }),
        response: { 200: z.object({ result: z.boolean() }) },
      },
    },
    async (request) => results.requiresFlagImplementation(ids(request.params).projectId, request.query),
  );

  app.get(`${base}/:id/`, { config: read, schema: { summary: 'One experiment (`as_of`: as it stood then).', ...one, querystring: AsOfQuery, response: { 200: Experiment } } }, async (request) => {
    const { projectId, id } = ids(request.params);
    const asOf = asOfOf(request.query);
    if (!asOf) return body((await experiments.queries.experiments.byId(projectId, id)) ?? notFound());
    const experiment = (await timeTravel.experiment(projectId, id, asOf)) ?? notFound();
    return body(experiment, await timeTravel.experimentSavedMetricLinks(projectId, id, asOf));
  });

  app.patch(
    `${base}/:id/`,
    { config: write, schema: { summary: 'Changes an experiment (start it with `start_date`, end it with `end_date`).', ...one, body: UpdateExperimentBody, response: { 200: Experiment } } },
    async (request) => {
      const { projectId, id } = ids(request.params);
      return body(await service.update(projectId, id, request.body, actorOf(request)));
    },
  );

  app.delete(
    `${base}/:id/`,
    { config: { ...write, docs: { response: { 204: NoContent } } }, schema: { summary: 'Deletes an experiment.', ...one } },
    async (request, reply) => {
      const { projectId, id } = ids(request.params);
      await service.delete(projectId, id, actorOf(request));
      return reply.status(204).send();
    },
  );

  app.post(
    `${base}/:id/create_exposure_cohort_for_experiment/`,
    { config: write, schema: { summary: 'Creates the cohort of persons exposed to the experiment.', ...one, response: { 200: Experiment } } },
    async (request) => {
      const { projectId, id } = ids(request.params);
      return body(await service.createExposureCohort(projectId, id, actorOf(request)));
    },
  );

  app.get(`${base}/:id/results/`, { config: read, schema: { summary: 'Primary metric results.', ...one, response: { 200: Results } } }, async (request) => {
    const { projectId, id } = ids(request.params);
    return results.primary(projectId, id);
  });

  app.get(
    `${base}/:id/secondary_results/`,
    { config: read, schema: { summary: 'Secondary metrics results.', ...one, response: { 200: Results } } },
    async (request) => {
      const { projectId, id } = ids(request.params);
      return results.secondary(projectId, id);
    },
  );
};
