import type { FastifyPluginAsync } from 'fastify';
import { actorOf } from '../actor';
import { bodyObject } from '../json-body';
import type { EarlyAccessRow } from '../../../projections/early-access-queries';
import { EARLY_ACCESS_STAGES } from '../../../streams';
import { earlyAccessBody, publicEarlyAccessBody } from '../../early-access';
import { invalidApiKey, malformedRequest, missingApiKey } from '../../ingest/errors';
import { pageEnvelope, parsePage } from '../pagination';
import { asPublicEndpoint, corsPreflight } from '../public-endpoint';
import { userBody } from '../users';

type P = { Params: { project_id: string; id: string } };

/**
 * Early access features (compat §8) at PostHog's path `early_access_feature/`, with
 * early_access_feature:read / :write; and the public list posthog-js loads with the project key.
 */
export const earlyAccessRoutes: FastifyPluginAsync = async (app) => {
  const { earlyAccess, queries, projectIdForToken } = app.runtime;
  const flag = (projectId: number, id: number) => queries.flags.byId(projectId, id);
  const body = async (e: EarlyAccessRow) => earlyAccessBody(e, flag, userBody(e.created_by ? await queries.access.user(e.created_by) : null));
  const projectOf = (params: { project_id: string }) => Number(params.project_id);
  const read = { config: { scope: 'early_access_feature:read' as const } };
  const write = { config: { scope: 'early_access_feature:write' as const } };
  const base = '/api/projects/:project_id/early_access_feature';
  const { service } = earlyAccess;

  app.get<P>(`${base}/`, read, async (request) => {
    const page = parsePage(request.query);
    const { count, rows } = await earlyAccess.queries.list(projectOf(request.params), page.limit, page.offset);
    return pageEnvelope(request, page, count, await Promise.all(rows.map(body)));
  });

  app.post<P>(`${base}/`, write, async (request, reply) =>
    reply.status(201).send(await body(await service.create(projectOf(request.params), bodyObject(request.body), actorOf(request)))),
  );

  app.get<P>(`${base}/:id/`, read, async (request) => body(await service.get(projectOf(request.params), request.params.id)));

  app.patch<P>(`${base}/:id/`, write, async (request) => body(await service.update(projectOf(request.params), request.params.id, bodyObject(request.body), actorOf(request))));

  app.delete<P>(`${base}/:id/`, write, async (request, reply) => {
    await service.delete(projectOf(request.params), request.params.id, actorOf(request));
    return reply.status(204).send();
  });

  await app.register(async (open) => {
    asPublicEndpoint(open);
    // posthog-js repeats `stage` for several stages; without one PostHog serves beta only.
    open.get('/api/early_access_features', { config: { repeatableQuery: ['stage'] } }, async (request) => {
      const query = request.query as Record<string, string | string[] | undefined>;
      const token = query.token;
      if (typeof token !== 'string' || token === '') throw missingApiKey();
      const projectId = await projectIdForToken(token);
      if (projectId === undefined) throw invalidApiKey();
      const stages = query.stage === undefined ? ['beta'] : [query.stage].flat();
      const unknown = stages.find((s) => !(EARLY_ACCESS_STAGES as readonly string[]).includes(s));
      if (unknown !== undefined) throw malformedRequest(`stage: "${unknown}" is not a valid stage`);
      return { earlyAccessFeatures: (await earlyAccess.queries.inStages(projectId, stages)).map(publicEarlyAccessBody) };
    });
    open.options('/api/early_access_features', corsPreflight('GET, OPTIONS'));
  });
};
