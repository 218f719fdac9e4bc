import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ActionRow } from '../../../projections/actions-queries';
import { actorOf } from '../actor';
import { ApiError } from '../errors';
import { numericId, ProjectObjectParams, ProjectParams } from '../schema/common';
import { Action, CreateActionBody, UpdateActionBody } from '../schema/actions';
import { userBody } from '../users';
import type { Parts } from '../runtime-parts';
import { AsOfQuery, asOfOf, orNotFound } from '../schema/as-of';

/**
 * PostHog's actions at `actions/`, with its scopes (action:read / action:write). The list is
 * PostHog's: `{results}` of every live action, unpaginated. Deleting is a PATCH `deleted: true`;
 * DELETE is refused with 405, as PostHog's ForbidDestroyModel does.
 */
export const actionRoutes: FastifyPluginAsyncZod<Parts<'experiments' | 'timeTravel', 'access'>> = async (app, { experiments, queries, timeTravel }) => {
  const service = experiments.actions;
  const body = async (a: ActionRow): Promise<z.output<typeof Action>> => ({
    id: a.id,
    name: a.fields.name,
    description: a.fields.description,
    tags: a.fields.tags,
    post_to_slack: a.fields.post_to_slack,
    slack_message_format: a.fields.slack_message_format,
    steps: a.fields.steps,
    created_at: a.created_at,
    created_by: userBody(a.created_by ? await queries.access.user(a.created_by) : null),
    deleted: a.deleted,
    is_calculating: false,
    // PostHog's deprecated column defaults to the creation time and is never moved since ClickHouse.
    last_calculated_at: a.created_at,
    team_id: a.project_id,
    is_action: true,
    bytecode_error: null,
    pinned_at: a.fields.pinned_at,
    creation_context: null,
  });
  // The auth plugin has already resolved project_id; a non-numeric id matches nothing.
  const ids = (params: { project_id: string; id?: string }) => ({ projectId: Number(params.project_id), id: numericId(params.id) });
  const read = { scope: 'action:read' as const };
  const write = { scope: 'action:write' as const };
  const base = '/api/projects/:project_id/actions';

  app.get(
    `${base}/`,
    { config: read, schema: { summary: "Lists the project's live actions, newest first (PostHog's unpaginated list).", params: ProjectParams, response: { 200: z.object({ results: z.array(Action) }) } } },
    async (request) => ({ results: await Promise.all((await experiments.queries.actions.list(ids(request.params).projectId)).map(body)) }),
  );

  app.post(
    `${base}/`,
    { config: write, schema: { summary: 'Creates an action: named steps an event may match.', params: ProjectParams, body: CreateActionBody, response: { 201: Action } } },
    async (request, reply) => {
      const { fields, deleted } = request.body;
      return reply.status(201).send(await body(await service.create(ids(request.params).projectId, fields, deleted, actorOf(request))));
    },
  );

  app.get(
    `${base}/:id/`,
    {
      config: read,
      schema: { summary: 'One action (a soft-deleted one too, with `deleted: true`, as PostHog; `as_of`: as it stood then).', params: ProjectObjectParams, querystring: AsOfQuery, response: { 200: Action } },
    },
    async (request) => {
      const { projectId, id } = ids(request.params);
      const asOf = asOfOf(request.query);
      return body(asOf ? orNotFound(await timeTravel.action(projectId, id, asOf)) : await service.get(projectId, id));
    },
  );

  app.patch(
    `${base}/:id/`,
    { config: write, schema: { summary: 'Changes an action; `deleted: true` deletes it, `false` restores it.', params: ProjectObjectParams, body: UpdateActionBody, response: { 200: Action } } },
    async (request) => {
      const { projectId, id } = ids(request.params);
      const { changes, deleted } = request.body;
      return body(await service.update(projectId, id, changes, deleted, actorOf(request)));
    },
  );

  app.delete(
    `${base}/:id/`,
    { config: write, schema: { summary: 'Refused (405): PostHog deletes actions with PATCH `deleted: true`.', params: ProjectObjectParams } },
    async (request) => {
      const { projectId, id } = ids(request.params);
      await service.get(projectId, id);
      throw new ApiError(405, { type: 'invalid_request', code: 'method_not_allowed', detail: 'Hard delete of this model is not allowed. Use a patch API call to set "deleted" to true', attr: null });
    },
  );
};
