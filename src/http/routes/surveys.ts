import type { FastifyPluginAsync } from 'fastify';
import { actorOf } from '../actor';
import { bodyObject } from '../json-body';
import type { SurveyRow } from '../../../projections/surveys-queries';
import { invalidApiKey, missingApiKey } from '../../ingest/errors';
import { surveyBody } from '../../surveys';
import { pageEnvelope, parsePage } from '../pagination';
import { asPublicEndpoint, corsPreflight } from '../public-endpoint';
import { userBody } from '../users';

type P = { Params: { project_id: string; id: string } };

/**
 * Surveys (compat §7): the management API with survey:read / survey:write, and the public list
 * posthog-js loads with the project key (`GET /api/surveys/?token=`), open to any origin.
 */
export const surveyRoutes: FastifyPluginAsync = async (app) => {
  const { surveys, queries, projectIdForToken } = app.runtime;
  const flag = (projectId: number, id: number) => queries.flags.byId(projectId, id);
  const body = async (s: SurveyRow) => surveyBody(s, flag, queries.flags.byKey, userBody(s.created_by ? await queries.access.user(s.created_by) : null));
  const projectOf = (params: { project_id: string }) => Number(params.project_id);
  const read = { config: { scope: 'survey:read' as const } };
  const write = { config: { scope: 'survey:write' as const } };
  const base = '/api/projects/:project_id/surveys';

  app.get<P>(`${base}/`, read, async (request) => {
    const page = parsePage(request.query);
    const search = (request.query as Record<string, string | undefined>).search;
    const { count, rows } = await surveys.queries.list(projectOf(request.params), page.limit, page.offset, search || undefined);
    return pageEnvelope(request, page, count, await Promise.all(rows.map(body)));
  });

  app.post<P>(`${base}/`, write, async (request, reply) =>
    reply.status(201).send(await body(await surveys.service.create(projectOf(request.params), bodyObject(request.body), actorOf(request)))),
  );

  /** PostHog's per-survey count of `survey sent` submissions. */
  app.get<P>(`${base}/responses_count/`, read, async (request) => surveys.queries.responsesCount(projectOf(request.params)));

  app.get<P>(`${base}/:id/`, read, async (request) => body(await surveys.service.get(projectOf(request.params), request.params.id)));

  app.patch<P>(`${base}/:id/`, write, async (request) =>
    body(await surveys.service.update(projectOf(request.params), request.params.id, bodyObject(request.body), actorOf(request))),
  );

  app.delete<P>(`${base}/:id/`, write, async (request, reply) => {
    await surveys.service.delete(projectOf(request.params), request.params.id, actorOf(request));
    return reply.status(204).send();
  });

  await app.register(async (open) => {
    asPublicEndpoint(open);
    open.get('/api/surveys', async (request) => {
      const token = (request.query as Record<string, string | undefined>).token;
      if (!token) throw missingApiKey();
      const projectId = await projectIdForToken(token);
      if (projectId === undefined) throw invalidApiKey();
      return { surveys: await surveys.publicSurveys(projectId), survey_config: null };
    });
    open.options('/api/surveys', corsPreflight('GET, OPTIONS'));
  });
};
