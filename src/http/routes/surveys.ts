import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../actor';
import type { SurveyRow } from '../../../projections/surveys-queries';
import { SurveyFields } from '../../../streams';
import { invalidApiKey, missingApiKey } from '../../ingest/errors';
import { surveyBody } from '../../surveys';
import { pageEnvelope } from '../pagination';
import { asPublicEndpoint, corsPreflight } from '../public-endpoint';
import { ErrorBody, JsonObject, NoContent, pageQuery, paginated, ProjectObjectParams, ProjectParams } from '../schema/common';
import { CreateSurveyBody, UpdateSurveyBody } from '../schema/surveys';
import { userBody } from '../users';
import type { Parts } from '../runtime-parts';
import { AsOfQuery, asOfOf, orNotFound } from '../schema/as-of';

const MinimalFlag = z.looseObject({ id: z.number().int(), key: z.string() }).nullable();
const Survey = z
  .looseObject({
    id: z.string(),
    ...SurveyFields.shape,
    linked_flag: MinimalFlag,
    linked_insight_id: z.null(),
    targeting_flag: MinimalFlag,
    internal_targeting_flag: MinimalFlag,
    created_at: z.string(),
    created_by: z.unknown().meta({ description: 'The creating user (UserBasic), or null.' }),
    feature_flag_keys: z.array(z.object({ key: z.string(), value: z.string().nullable() })),
    iteration_start_dates: z.array(z.string()),
    responses_count: z.number().int(),
  })
  .meta({ id: 'Survey' });

const PublicSurvey = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  linked_flag_key: z.string().nullable(),
  targeting_flag_key: z.string().nullable(),
  internal_targeting_flag_key: z.string().nullable(),
  questions: z.array(JsonObject),
  conditions: JsonObject.nullable(),
  appearance: JsonObject.nullable(),
  start_date: z.string().nullable(),
  end_date: z.string().nullable(),
});

/**
 * Surveys (compat §7): the management API with survey:read / survey:write, and the public list
 * posthog-js loads with the project key (`GET /api/surveys/?token=`), open to any origin.
 */
export const surveyRoutes: FastifyPluginAsyncZod<Parts<'surveys' | 'projectIdForToken' | 'timeTravel', 'access' | 'flags'>> = async (app, { surveys, queries, projectIdForToken, timeTravel }) => {
  const flag = (projectId: number, id: number) => queries.flags.byId(projectId, id);
  const body = async (s: SurveyRow) => surveyBody(s, flag, queries.flags.byKey, userBody(s.created_by ? await queries.access.user(s.created_by) : null));
  const projectOf = (params: { project_id: string }) => Number(params.project_id);
  const read = { scope: 'survey:read' as const };
  const write = { scope: 'survey:write' as const };
  const base = '/api/projects/:project_id/surveys';

  app.get(
    `${base}/`,
    {
      config: read,
      schema: {
        summary: 'Lists surveys.',
        params: ProjectParams,
        querystring: z.object({ ...pageQuery(), search: z.string().optional().meta({ description: 'Part of the name.' }) }),
        response: { 200: paginated(Survey) },
      },
    },
    async (request) => {
      const { search, ...page } = request.query;
      const { count, rows } = await surveys.queries.list(projectOf(request.params), page.limit, page.offset, search || undefined);
      return pageEnvelope(request, page, count, await Promise.all(rows.map(body)));
    },
  );

  app.post(`${base}/`, { config: write, schema: { summary: 'Creates a survey.', params: ProjectParams, body: CreateSurveyBody, response: { 201: Survey } } }, async (request, reply) =>
    reply.status(201).send(await body(await surveys.service.create(projectOf(request.params), request.body, actorOf(request)))),
  );

  /** PostHog's per-survey count of `survey sent` submissions. */
  app.get(
    `${base}/responses_count/`,
    { config: read, schema: { summary: 'Submitted responses per survey id.', params: ProjectParams, response: { 200: z.record(z.string(), z.number().int()) } } },
    async (request) => surveys.queries.responsesCount(projectOf(request.params)),
  );

  app.get(
    `${base}/:id/`,
    { config: read, schema: { summary: 'One survey (`as_of`: as it stood then).', params: ProjectObjectParams, querystring: AsOfQuery, response: { 200: Survey } } },
    async (request) => {
      const asOf = asOfOf(request.query);
      if (!asOf) return body(await surveys.service.get(projectOf(request.params), request.params.id));
      // The survey's flags as they stood too.
      const then = orNotFound(await timeTravel.survey(projectOf(request.params), request.params.id, asOf));
      const flagThen = (projectId: number, id: number) => timeTravel.flag(projectId, id, asOf);
      const flagByKeyThen = (projectId: number, key: string) => timeTravel.flagByKey(projectId, key, asOf);
      return surveyBody(then, flagThen, flagByKeyThen, userBody(then.created_by ? await queries.access.user(then.created_by) : null));
    },
  );

  app.patch(`${base}/:id/`, { config: write, schema: { summary: 'Changes a survey.', params: ProjectObjectParams, body: UpdateSurveyBody, response: { 200: Survey } } }, async (request) =>
    body(await surveys.service.update(projectOf(request.params), request.params.id, request.body, actorOf(request))),
  );

  app.delete(
    `${base}/:id/`,
    { config: { ...write, docs: { response: { 204: NoContent } } }, schema: { summary: 'Deletes a survey and its flags.', params: ProjectObjectParams } },
    async (request, reply) => {
      await surveys.service.delete(projectOf(request.params), request.params.id, actorOf(request));
      return reply.status(204).send();
    },
  );

  await app.register(async (open) => {
    asPublicEndpoint(open);
    // The key check answers in the capture error shape (401 missing_api_key / invalid_api_key), so
    // the query is described here and read by the handler.
    const docs = {
      querystring: z.object({ token: z.string().meta({ description: 'The project API key.' }) }),
      response: { 200: z.object({ surveys: z.array(PublicSurvey), survey_config: z.null() }), 401: ErrorBody },
    };
    open.get('/api/surveys', { config: { docs }, schema: { operationId: 'public_surveys_list', summary: 'The active surveys posthog-js shows (project key as `?token=`).' } }, async (request) => {
      const token = (request.query as Record<string, string | undefined>).token;
      if (!token) throw missingApiKey();
      const projectId = await projectIdForToken(token);
      if (projectId === undefined) throw invalidApiKey();
      return { surveys: await surveys.publicSurveys(projectId), survey_config: null };
    });
    open.options('/api/surveys', corsPreflight('GET, OPTIONS'));
  });
};
