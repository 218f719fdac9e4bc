import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CohortRow } from '../../../projections/cohorts-queries';
import { notFoundError } from '../errors';
import { pageEnvelope } from '../pagination';
import { JsonObject, numericId, pageQuery, paginated, ProjectObjectParams, ProjectParams, UserBasic } from '../schema/common';
import { userBody } from '../users';
import { Person } from './people';
import type { Parts } from '../runtime-parts';
import { AsOfQuery, asOfOf } from '../schema/as-of';

const Cohort = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    groups: z.array(z.unknown()),
    deleted: z.boolean(),
    filters: JsonObject,
    query: z.null(),
    is_calculating: z.boolean(),
    created_by: UserBasic.nullable(),
    created_at: z.string(),
    last_calculation: z.string().nullable(),
    errors_calculating: z.number().int(),
    count: z.number().int().meta({ description: 'Persons in the cohort now.' }),
    is_static: z.boolean(),
    experiment_set: z.array(z.number().int()),
  })
  .meta({ id: 'Cohort' });

/**
 * Cohorts, read-only for now (they are created as experiments' exposure cohorts): list, retrieve and
 * the persons in one, all with cohort:read. Shape as PostHog's Cohort; membership is computed from
 * the log as events arrive, so `is_calculating` is always false.
 */
export const cohortRoutes: FastifyPluginAsyncZod<Parts<'timeTravel', 'access' | 'cohorts' | 'ingestion'>> = async (app, { queries, timeTravel }) => {
  const cohorts = queries.cohorts;
  const body = async (c: CohortRow): Promise<z.output<typeof Cohort>> => ({
    id: c.id,
    name: c.name,
    description: c.description,
    groups: [],
    deleted: false,
    filters: c.filters,
    query: null,
    is_calculating: false,
    created_by: userBody(c.created_by ? await queries.access.user(c.created_by) : null),
    created_at: c.created_at,
    last_calculation: null,
    errors_calculating: 0,
    count: c.count,
    is_static: false,
    experiment_set: c.experiment_id === null ? [] : [c.experiment_id],
  });
  const ids = (params: { project_id: string; id?: string }) => ({ projectId: Number(params.project_id), id: numericId(params.id) });
  const read = { scope: 'cohort:read' as const };
  const base = '/api/projects/:project_id/cohorts';
  const Page = z.object(pageQuery());

  app.get(`${base}/`, { config: read, schema: { summary: 'Lists cohorts.', params: ProjectParams, querystring: Page, response: { 200: paginated(Cohort) } } }, async (request) => {
    const page = request.query;
    const { count, rows } = await cohorts.list(ids(request.params).projectId, page.limit, page.offset);
    return pageEnvelope(request, page, count, await Promise.all(rows.map(body)));
  });

  app.get(
    `${base}/:id/`,
    { config: read, schema: { summary: 'One cohort (`as_of`: as it stood then; `count` is membership now).', params: ProjectObjectParams, querystring: AsOfQuery, response: { 200: Cohort } } },
    async (request) => {
      const { projectId, id } = ids(request.params);
      const asOf = asOfOf(request.query);
      const cohort = asOf ? await timeTravel.cohort(projectId, id, asOf) : await cohorts.byId(projectId, id);
      if (!cohort) throw notFoundError();
      return body(cohort);
    },
  );

  /** The persons in the cohort now (PostHog's /cohorts/:id/persons/), ordered by uuid. */
  app.get(
    `${base}/:id/persons/`,
    { config: read, schema: { operationId: 'cohorts_persons_list', summary: 'The persons in the cohort now, by uuid.', params: ProjectObjectParams, querystring: Page, response: { 200: paginated(Person) } } },
    async (request) => {
      const { projectId, id } = ids(request.params);
      const cohort = await cohorts.byId(projectId, id);
      if (!cohort) throw notFoundError();
      const page = request.query;
      const persons = (await Promise.all((await cohorts.members(projectId, id, page.limit, page.offset)).map((uuid) => queries.ingestion.person(projectId, uuid)))).filter(
        (p) => p !== undefined,
      );
      return pageEnvelope(request, page, cohort.count, persons);
    },
  );
};
