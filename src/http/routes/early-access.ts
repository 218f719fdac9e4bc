import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../actor';
import type { EarlyAccessRow } from '../../../projections/early-access-queries';
import { EARLY_ACCESS_STAGES, EarlyAccessFields } from '../../../streams';
import { earlyAccessBody, publicEarlyAccessBody } from '../../early-access';
import { invalidApiKey, malformedRequest, missingApiKey } from '../../ingest/errors';
import { pageEnvelope } from '../pagination';
import { asPublicEndpoint, corsPreflight } from '../public-endpoint';
import { ErrorBody, JsonObject, NoContent, pageQuery, paginated, ProjectObjectParams, ProjectParams } from '../schema/common';
import { CreateEarlyAccessBody, UpdateEarlyAccessBody } from '../schema/early-access';
import { userBody } from '../users';
import { FeatureFlag } from './feature-flags';
import type { Parts } from '../runtime-parts';
import { AsOfQuery, asOfOf, orNotFound } from '../schema/as-of';

const EarlyAccessFeature = z
  .object({
    id: z.string(),
    feature_flag: FeatureFlag.pick({ id: true, team_id: true, key: true, name: true, filters: true, deleted: true, active: true, ensure_experience_continuity: true }).nullable(),
    ...EarlyAccessFields.shape,
    created_at: z.string(),
    created_by: z.unknown().meta({ description: 'The creating user (UserBasic), or null.' }),
  })
  .meta({ id: 'EarlyAccessFeature' });

const PublicFeature = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  stage: z.enum(EARLY_ACCESS_STAGES),
  documentationUrl: z.string(),
  flagKey: z.string(),
  payload: JsonObject,
  assignee: EarlyAccessFields.shape.assignee,
});

/**
 * Early access features (compat §8) at PostHog's path `early_access_feature/`, with
 * early_access_feature:read / :write; and the public list posthog-js loads with the project key.
 */
export const earlyAccessRoutes: FastifyPluginAsyncZod<Parts<'earlyAccess' | 'projectIdForToken' | 'timeTravel', 'access' | 'flags'>> = async (app, { earlyAccess, queries, projectIdForToken, timeTravel }) => {
  const flag = (projectId: number, id: number) => queries.flags.byId(projectId, id);
  const body = async (e: EarlyAccessRow) => earlyAccessBody(e, flag, userBody(e.created_by ? await queries.access.user(e.created_by) : null));
  const projectOf = (params: { project_id: string }) => Number(params.project_id);
  const read = { scope: 'early_access_feature:read' as const };
  const write = { scope: 'early_access_feature:write' as const };
  const base = '/api/projects/:project_id/early_access_feature';
  const { service } = earlyAccess;

  app.get(
    `${base}/`,
    { config: read, schema: { summary: 'Lists early access features.', params: ProjectParams, querystring: z.object(pageQuery()), response: { 200: paginated(EarlyAccessFeature) } } },
    async (request) => {
      const page = request.query;
      const { count, rows } = await earlyAccess.queries.list(projectOf(request.params), page.limit, page.offset);
      return pageEnvelope(request, page, count, await Promise.all(rows.map(body)));
    },
  );

  app.post(
    `${base}/`,
    { config: write, schema: { summary: 'Creates an early access feature (and its flag).', params: ProjectParams, body: CreateEarlyAccessBody, response: { 201: EarlyAccessFeature } } },
    async (request, reply) => reply.status(201).send(await body(await service.create(projectOf(request.params), request.body, actorOf(request)))),
  );

  app.get(
    `${base}/:id/`,
    { config: read, schema: { summary: 'One early access feature (`as_of`: as it stood then).', params: ProjectObjectParams, querystring: AsOfQuery, response: { 200: EarlyAccessFeature } } },
    async (request) => {
      const asOf = asOfOf(request.query);
      if (!asOf) return body(await service.get(projectOf(request.params), request.params.id));
      // The feature's flag as it stood too.
      const then = orNotFound(await timeTravel.earlyAccessFeature(projectOf(request.params), request.params.id, asOf));
      const flagThen = (projectId: number, id: number) => timeTravel.flag(projectId, id, asOf);
      return earlyAccessBody(then, flagThen, userBody(then.created_by ? await queries.access.user(then.created_by) : null));
    },
  );

  app.patch(
    `${base}/:id/`,
    { config: write, schema: { summary: 'Changes an early access feature.', params: ProjectObjectParams, body: UpdateEarlyAccessBody, response: { 200: EarlyAccessFeature } } },
    async (request) => body(await service.update(projectOf(request.params), request.params.id, request.body, actorOf(request))),
  );

  app.delete(
    `${base}/:id/`,
    { config: { ...write, docs: { response: { 204: NoContent } } }, schema: { summary: 'Deletes an early access feature.', params: ProjectObjectParams } },
    async (request, reply) => {
      await service.delete(projectOf(request.params), request.params.id, actorOf(request));
      return reply.status(204).send();
    },
  );

  await app.register(async (open) => {
    asPublicEndpoint(open);
    // The key and stage checks answer in the capture error shape, so the query is described here and read by the handler.
    const docs = {
      querystring: z.object({
        token: z.string().meta({ description: 'The project API key.' }),
        stage: z.enum(EARLY_ACCESS_STAGES).optional().meta({ description: 'Repeatable; default beta.' }),
      }),
      response: { 200: z.object({ earlyAccessFeatures: z.array(PublicFeature) }), 401: ErrorBody },
    };
    // posthog-js repeats `stage` for several stages; without one PostHog serves beta only.
    open.get(
      '/api/early_access_features',
      { config: { repeatableQuery: ['stage'], docs }, schema: { operationId: 'public_early_access_features_list', summary: 'The early access features posthog-js lists (project key as `?token=`).' } },
      async (request) => {
        const query = request.query as Record<string, string | string[] | undefined>;
        const token = query.token;
        if (typeof token !== 'string' || token === '') throw missingApiKey();
        const projectId = await projectIdForToken(token);
        if (projectId === undefined) throw invalidApiKey();
        const stages = query.stage === undefined ? ['beta'] : [query.stage].flat();
        const unknown = stages.find((s) => !(EARLY_ACCESS_STAGES as readonly string[]).includes(s));
        if (unknown !== undefined) throw malformedRequest(`stage: "${unknown}" is not a valid stage`);
        return { earlyAccessFeatures: (await earlyAccess.queries.inStages(projectId, stages)).map(publicEarlyAccessBody) };
      },
    );
    open.options('/api/early_access_features', corsPreflight('GET, OPTIONS'));
  });
};
