import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { FeatureFlagRow } from '../../../projections/feature-flags-queries';
import { actorOf } from '../actor';
import { notFoundError } from '../errors';
import { pageEnvelope } from '../pagination';
import { validateFlagKey } from '../../flags/management';
import { JsonObject, NoContent, pageQuery, paginated, ProjectObjectParams, ProjectParams, UserBasic } from '../schema/common';
import { drf, text } from '../schema/drf';
import { userBody } from '../users';
import type { Parts } from '../runtime-parts';
import { AsOfQuery, asOfOf } from '../schema/as-of';

// No `properties` key in examples: the document generator reads any such key as a schema's.
const FILTERS_EXAMPLE = { groups: [{ rollout_percentage: 50 }], multivariate: null, payloads: {} };

const Filters = JsonObject.meta({
  description: 'Release conditions: `groups` (property filters and rollout_percentage each), optional `multivariate.variants`, `payloads`, `aggregation_group_type_index`.',
  examples: [FILTERS_EXAMPLE],
});

const FlagFields = {
  name: text({ blank: true }).optional().meta({ description: 'Description shown in lists.' }),
  filters: Filters.optional(),
  active: z.boolean().optional(),
  ensure_experience_continuity: z.boolean().optional(),
};
// The key is read with the flag's own rules and PostHog's messages ("This field is required." when absent).
const CreateBody = z
  .looseObject({ key: drf(z.string(), validateFlagKey, 'Unique in the project: letters, digits, `-` and `_`.'), ...FlagFields })
  .meta({ examples: [{ key: 'new-checkout', name: 'New checkout', filters: FILTERS_EXAMPLE, active: true }] });
// A PATCH may repeat the key; any other value is refused against the stored one ("cannot be changed").
const UpdateBody = z
  .looseObject({
    key: z.unknown().optional().meta({ type: 'string', description: 'The stored key (it cannot be changed).' }),
    ...FlagFields,
    deleted: z.boolean().optional().meta({ description: 'true soft-deletes the flag.' }),
  })
  .meta({ examples: [{ active: false }] });

export const FeatureFlag = z
  .object({
    id: z.number().int(),
    team_id: z.number().int(),
    key: z.string(),
    name: z.string(),
    filters: JsonObject,
    active: z.boolean(),
    deleted: z.boolean(),
    ensure_experience_continuity: z.boolean(),
    created_at: z.string(),
    created_by: UserBasic.nullable(),
    updated_at: z.string(),
    version: z.number().int(),
    experiment_set: z.array(z.number().int()),
  })
  .meta({ id: 'FeatureFlag' });

const ListQuery = z.object({
  ...pageQuery(),
  search: z.string().optional().meta({ description: 'Part of the key or name.' }),
  active: z.string().optional().meta({ description: '`true` (or `STALE`): active flags only; anything else: inactive ones.' }),
});

/** PostHog-style feature flag management: list, create, retrieve, update, soft delete. */
export const featureFlagRoutes: FastifyPluginAsyncZod<Parts<'flags' | 'timeTravel', 'access' | 'flags'>> = async (app, { queries, flags, timeTravel }) => {
  const users = queries.access;
  const body = async (f: FeatureFlagRow): Promise<z.output<typeof FeatureFlag>> => ({
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
  // The auth plugin has already resolved project_id; a non-numeric flag id simply matches nothing.
  const ids = (params: { project_id: string; id?: string }) => ({
    projectId: Number(params.project_id),
    id: /^\d{1,15}$/.test(params.id ?? '') ? Number(params.id) : -1,
  });
  const read = { scope: 'feature_flag:read' as const };
  const write = { scope: 'feature_flag:write' as const };
  const base = '/api/projects/:project_id/feature_flags';

  app.get(
    `${base}/`,
    { config: read, schema: { summary: 'Lists feature flags (not deleted).', params: ProjectParams, querystring: ListQuery, response: { 200: paginated(FeatureFlag) } } },
    async (request) => {
      const { search, active, ...page } = request.query;
      const isActive = active === undefined ? undefined : active === 'true' || active === 'STALE';
      const { count, rows } = await queries.flags.list(ids(request.params).projectId, page.limit, page.offset, { search, active: isActive });
      return pageEnvelope(request, page, count, await Promise.all(rows.map(body)));
    },
  );

  app.post(
    `${base}/`,
    { config: write, schema: { summary: 'Creates a feature flag.', params: ProjectParams, body: CreateBody, response: { 201: FeatureFlag } } },
    async (request, reply) => {
      const flag = await flags.create(ids(request.params).projectId, request.body, actorOf(request));
      return reply.status(201).send(await body(flag));
    },
  );

  app.get(
    `${base}/:id/`,
    { config: read, schema: { summary: 'One feature flag (`as_of`: as it stood then).', params: ProjectObjectParams, querystring: AsOfQuery, response: { 200: FeatureFlag } } },
    async (request) => {
      const { projectId, id } = ids(request.params);
      const asOf = asOfOf(request.query);
      const flag = asOf ? await timeTravel.flag(projectId, id, asOf) : await queries.flags.byId(projectId, id);
      if (!flag || flag.deleted) throw notFoundError();
      return body(flag);
    },
  );

  app.patch(
    `${base}/:id/`,
    { config: write, schema: { summary: 'Changes a feature flag (`deleted: true` soft-deletes it).', params: ProjectObjectParams, body: UpdateBody, response: { 200: FeatureFlag } } },
    async (request) => {
      const { projectId, id } = ids(request.params);
      return body(await flags.update(projectId, id, request.body, actorOf(request)));
    },
  );

  app.delete(
    `${base}/:id/`,
    { config: { ...write, docs: { response: { 204: NoContent } } }, schema: { summary: 'Soft-deletes a feature flag.', params: ProjectObjectParams } },
    async (request, reply) => {
      const { projectId, id } = ids(request.params);
      await flags.delete(projectId, id, actorOf(request));
      return reply.status(204).send();
    },
  );
};
