import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { ActivityFilters, ActivityRow, ActivityScope } from '../../../projections/activity';
import { ACTIVITY_SCOPES } from '../../../projections/activity';
import type { Scope } from '../../../streams';
import { hasScope } from '../auth';
import { notFoundError } from '../errors';
import { linkWith } from '../links';
import { pageEnvelope } from '../pagination';
import { ActivityEntry, ProjectActivityQuery, ResourceActivityPage, ResourceActivityQuery } from '../schema/activity';
import { paginated, ProjectObjectParams, ProjectParams } from '../schema/common';
import { userBody } from '../users';
import type { Parts } from '../runtime-parts';

/** Per scope: the collection its items live under and the scope that reads them (as their own routes require). */
const RESOURCES: Readonly<Record<ActivityScope, { path: string; read: Scope; noun: string }>> = {
  FeatureFlag: { path: 'feature_flags', read: 'feature_flag:read', noun: 'feature flag' },
  Experiment: { path: 'experiments', read: 'experiment:read', noun: 'experiment' },
  ExperimentSavedMetric: { path: 'experiment_saved_metrics', read: 'experiment:read', noun: 'saved experiment metric' },
  Action: { path: 'actions', read: 'action:read', noun: 'action' },
  Cohort: { path: 'cohorts', read: 'cohort:read', noun: 'cohort' },
  Survey: { path: 'surveys', read: 'survey:read', noun: 'survey' },
  EarlyAccessFeature: { path: 'early_access_feature', read: 'early_access_feature:read', noun: 'early access feature' },
  BatchExport: { path: 'batch_exports', read: 'batch_export:read', noun: 'batch export' },
};

type Entry = z.output<typeof ActivityEntry>;
const Detail = ActivityEntry.shape.detail;
const SYSTEM = { first_name: 'System', email: null, is_system: true } as const;

/**
 * Activity history in PostHog's shapes (compat §12): the project's log (`activity_log:read`, each
 * entry shown only when the key may also read the resource it describes) and each resource's own
 * (`<resource>/activity/`, `<resource>/:id/activity/`, with that resource's read scope).
 */
export const activityRoutes: FastifyPluginAsyncZod<Parts<never, 'access' | 'activity'>> = async (app, { queries }) => {
  const { access, activity } = queries;

  const entry = async (row: ActivityRow, organizationId: string | null): Promise<Entry> => {
    const actor = row.actor;
    const user = actor.type === 'user' ? userBody(await access.user(actor.id)) : null;
    const key = actor.type === 'user' && actor.keyId ? await access.key(actor.keyId) : undefined;
    return {
      id: row.id,
      user: user ?? SYSTEM,
      api_key: key ? { id: key.id, label: key.label } : null,
      actor_type: actor.type,
      unread: false,
      is_system: user === null,
      was_impersonated: false,
      organization_id: organizationId,
      activity: row.activity,
      scope: row.scope,
      item_id: row.item_id,
      detail: Detail.parse(row.detail),
      created_at: row.created_at,
    };
  };
  const entries = async (projectId: number, rows: ActivityRow[]) => {
    const organizationId = (await access.project(projectId))?.organization_id ?? null;
    return Promise.all(rows.map((r) => entry(r, organizationId)));
  };
  const projectOf = (request: FastifyRequest) => Number((request.params as { project_id: string }).project_id);

  app.get(
    '/api/projects/:project_id/activity_log/',
    {
      config: { scope: 'activity_log:read' },
      schema: {
        summary: "The project's activity, newest first: entries about resources the key may read.",
        params: ProjectParams,
        querystring: ProjectActivityQuery,
        response: { 200: paginated(ActivityEntry) },
      },
    },
    async (request) => {
      const { limit, offset, scope, item_id, user, after, before } = request.query;
      const keyScopes = request.auth!.key.scopes;
      const readable = ACTIVITY_SCOPES.filter((s) => hasScope(keyScopes, RESOURCES[s].read) && (scope === undefined || s === scope));
      const filters: ActivityFilters = { scopes: readable, itemId: item_id, userId: user, after, before };
      const projectId = projectOf(request);
      const { count, rows } = await activity.list(projectId, filters, limit, offset);
      return pageEnvelope(request, { limit, offset }, count, await entries(projectId, rows));
    },
  );

  /** PostHog's page-based envelope for a resource's activity. */
  const page = async (request: FastifyRequest, query: z.output<typeof ResourceActivityQuery>, scope: ActivityScope, itemId?: string) => {
    const projectId = projectOf(request);
    const { limit, page: number } = query;
    const { count, rows } = await activity.list(projectId, { scopes: [scope], itemId }, limit, (number - 1) * limit);
    return {
      results: await entries(projectId, rows),
      next: number * limit < count ? linkWith(request, { page: String(number + 1), limit: String(limit) }) : null,
      previous: number > 1 ? linkWith(request, { page: String(number - 1), limit: String(limit) }) : null,
      total_count: count,
    };
  };

  for (const scope of ACTIVITY_SCOPES) {
    const { path, read, noun } = RESOURCES[scope];
    const base = `/api/projects/:project_id/${path}`;
    app.get(
      `${base}/activity/`,
      {
        config: { scope: read },
        schema: { summary: `Changes to every ${noun} of the project, newest first.`, params: ProjectParams, querystring: ResourceActivityQuery, response: { 200: ResourceActivityPage } },
      },
      async (request) => page(request, request.query, scope),
    );
    app.get(
      `${base}/:id/activity/`,
      {
        config: { scope: read },
        schema: { summary: `Changes to one ${noun}, newest first (deleted ones keep their history).`, params: ProjectObjectParams, querystring: ResourceActivityQuery, response: { 200: ResourceActivityPage } },
      },
      async (request) => {
        const itemId = request.params.id;
        if (!(await activity.hasItem(projectOf(request), scope, itemId))) throw notFoundError();
        return page(request, request.query, scope, itemId);
      },
    );
  }
};
