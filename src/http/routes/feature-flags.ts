import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { FeatureFlagRow } from '../../../projections/feature-flags-queries';
import type { Actor } from '../../../streams';
import { notFoundError } from '../errors';
import { pageEnvelope, parsePage } from '../pagination';
import { userBody } from '../users';
import { parseWith } from '../validation';

// `key` is checked by the service (PostHog's messages); zod 4 treats a bare z.unknown() object key
// as required, which made every PATCH without `key` a 400, so it is optional here.
const CreateBody = z.looseObject({
  key: z.unknown().optional(),
  name: z.string().optional(),
  filters: z.unknown().optional(),
  active: z.boolean().optional(),
  ensure_experience_continuity: z.boolean().optional(),
});
const UpdateBody = CreateBody.extend({ deleted: z.boolean().optional() });

type P = { Params: { project_id: string; id: string } };

/** PostHog-style feature flag management: list, create, retrieve, update, soft delete. */
export const featureFlagRoutes: FastifyPluginAsync = async (app) => {
  const { queries, flags } = app.runtime;
  const users = queries.access;
  const body = async (f: FeatureFlagRow) => ({
    id: f.id,
    team_id: f.project_id,
    key: f.key,
    name: f.name,
    filters: f.filters,
    active: f.active,
    deleted: f.deleted,
    ensure_experience_continuity: f.ensure_experience_continuity,
    created_at: f.created_at,
    created_by: userBody(f.created_by ? await users.user(f.created_by) : null),
    updated_at: f.updated_at,
    version: f.version,
    experiment_set: f.experiment_id ? [f.experiment_id] : [],
  });
  const actor = (req: { auth: { user: { id: number }; key: { id: string } } | null }): Actor => ({
    type: 'user',
    id: req.auth!.user.id,
    keyId: req.auth!.key.id,
  });
  // The auth plugin has already resolved project_id; a non-numeric flag id simply matches nothing.
  const ids = (params: { project_id: string; id?: string }) => ({
    projectId: Number(params.project_id),
    id: /^\d{1,15}$/.test(params.id ?? '') ? Number(params.id) : -1,
  });
  const base = '/api/projects/:project_id/feature_flags';

  app.get<P>(`${base}/`, { config: { scope: 'feature_flag:read' } }, async (request) => {
    const page = parsePage(request.query);
    const q = request.query as Record<string, string | undefined>;
    const active = q.active === undefined ? undefined : q.active === 'true' || q.active === 'STALE';
    const { count, rows } = await queries.flags.list(ids(request.params).projectId, page.limit, page.offset, { search: q.search, active });
    return pageEnvelope(request, page, count, await Promise.all(rows.map(body)));
  });

  app.post<P>(`${base}/`, { config: { scope: 'feature_flag:write' } }, async (request, reply) => {
    const input = parseWith(CreateBody, request.body);
    const flag = await flags.create(ids(request.params).projectId, input, actor(request));
    return reply.status(201).send(await body(flag));
  });

  app.get<P>(`${base}/:id/`, { config: { scope: 'feature_flag:read' } }, async (request) => {
    const { projectId, id } = ids(request.params);
    const flag = await queries.flags.byId(projectId, id);
    if (!flag || flag.deleted) throw notFoundError();
    return body(flag);
  });

  app.patch<P>(`${base}/:id/`, { config: { scope: 'feature_flag:write' } }, async (request) => {
    const { projectId, id } = ids(request.params);
    return body(await flags.update(projectId, id, parseWith(UpdateBody, request.body), actor(request)));
  });

  app.delete<P>(`${base}/:id/`, { config: { scope: 'feature_flag:write' } }, async (request, reply) => {
    const { projectId, id } = ids(request.params);
    await flags.delete(projectId, id, actor(request));
    return reply.status(204).send();
  });
};
