import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ScopeOrAll } from '../../../streams';
import type { PersonalKeyRow } from '../../../projections/access-queries';
import { actorOf } from '../actor';
import { hasScope, type AuthContext } from '../auth';
import { forbidden, invalidInput, notFoundError } from '../errors';
import { NoContent } from '../schema/common';
import type { Parts } from '../runtime-parts';

/** PostHog's PersonalAPIKey; `value` is present only in the answer that made it (create, roll). */
const PersonalApiKey = z
  .object({
    id: z.string(),
    label: z.string(),
    value: z.string().optional().meta({ description: 'The key itself: shown once, in the answer to create or roll, never again.' }),
    mask_value: z.string(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    last_rolled_at: z.string().nullable(),
    user_id: z.number().int(),
    scopes: z.array(z.string()),
    scoped_teams: z.array(z.number().int()).nullable(),
    scoped_organizations: z.array(z.string()).nullable(),
  })
  .meta({ id: 'PersonalApiKey' });

const CreateKey = z
  .object({
    label: z.string().trim().min(1, 'This field may not be blank.').max(100),
    scopes: z.array(ScopeOrAll).min(1, 'At least one scope is required.'),
    scoped_teams: z.array(z.number().int().positive()).min(1).nullable().optional(),
    scoped_organizations: z.array(z.uuid()).min(1).nullable().optional(),
  })
  .strict()
  .meta({ examples: [{ label: 'teammate, flags only', scopes: ['feature_flag:read', 'feature_flag:write'], scoped_teams: [1] }] });

const KeyParams = z.object({ id: z.string().max(100).meta({ description: 'The key id (not its value).' }) });

const keyBody = (k: PersonalKeyRow, value?: string) => ({
  id: k.id,
  label: k.label,
  ...(value ? { value } : {}),
  mask_value: k.mask_value,
  created_at: k.created_at,
  // Not tracked: recording each use would put a write on every authenticated request.
  last_used_at: null,
  last_rolled_at: k.last_rolled_at,
  user_id: k.user_id,
  scopes: k.scopes,
  scoped_teams: k.scoped_projects,
  scoped_organizations: k.scoped_organizations,
});

/**
 * A key never makes a key stronger than itself: every scope it grants must be one the maker holds,
 * and a maker limited to some projects (or organizations) can only hand out keys limited to those.
 */
function refuseEscalation(auth: AuthContext, body: z.output<typeof CreateKey>) {
  for (const scope of body.scopes) {
    const held = scope === '*' ? auth.key.scopes.includes('*') : hasScope(auth.key.scopes, scope);
    if (!held) throw forbidden(`This key cannot grant the scope '${scope}' it does not hold.`);
  }
  if (auth.projectFilter) {
    if (!body.scoped_teams) throw invalidInput('A key limited to projects can only create keys limited to some of them.', 'scoped_teams');
    const outside = body.scoped_teams.find((p) => !auth.projectFilter!.includes(p));
    if (outside !== undefined) throw forbidden(`API key does not have access to project ${outside}.`);
  }
  if (body.scoped_organizations) {
    const outside = body.scoped_organizations.find((o) => !auth.organizationIds.includes(o));
    if (outside) throw forbidden('You do not have access to this organization.');
  }
  if (auth.key.scoped_organizations && !body.scoped_organizations)
    throw invalidInput('A key limited to organizations can only create keys limited to some of them.', 'scoped_organizations');
}

/** Personal API keys of the key's own user (PostHog's `/api/personal_api_keys/`): user-level, no project in the path. */
export const personalApiKeyRoutes: FastifyPluginAsyncZod<Parts<'access', 'access'>> = async (app, parts) => {
  const queries = parts.queries.access;
  const read = { scope: 'personal_api_key:read' } as const;
  const write = { scope: 'personal_api_key:write' } as const;

  /** One live key of the requesting user; another user's key and a revoked one are both just absent. */
  const ownKey = async (auth: AuthContext, id: string) => {
    const key = await queries.key(id);
    if (!key || key.user_id !== auth.user.id || key.revoked_at) throw notFoundError();
    return key;
  };

  app.get(
    '/api/personal_api_keys/',
    { config: read, schema: { summary: "The key's user's live personal API keys (masked).", response: { 200: z.array(PersonalApiKey) } } },
    async (request) => (await queries.keysOf(request.auth!.user.id)).filter((k) => !k.revoked_at).map((k) => keyBody(k)),
  );

  app.get(
    '/api/personal_api_keys/:id/',
    { config: read, schema: { summary: 'One personal API key (masked).', params: KeyParams, response: { 200: PersonalApiKey } } },
    async (request) => keyBody(await ownKey(request.auth!, request.params.id)),
  );

  app.post(
    '/api/personal_api_keys/',
    {
      config: write,
      schema: { summary: 'Creates a personal API key for the same user; its value is in this answer only.', body: CreateKey, response: { 201: PersonalApiKey } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const body = request.body;
      refuseEscalation(auth, body);
      for (const p of body.scoped_teams ?? []) {
        const project = await queries.project(p);
        if (!project || !auth.organizationIds.includes(project.organization_id)) throw invalidInput(`Project ${p} does not exist.`, 'scoped_teams');
      }
      const created = await parts.access.createPersonalKey(
        { userId: auth.user.id, label: body.label, scopes: body.scopes, scopedProjects: body.scoped_teams ?? null, scopedOrganizations: body.scoped_organizations ?? null },
        actorOf(request),
      );
      return reply.status(201).send(keyBody((await queries.key(created.id))!, created.key));
    },
  );

  app.post(
    '/api/personal_api_keys/:id/roll/',
    { config: write, schema: { summary: 'Replaces the key\'s value; the old one stops working. The new value is in this answer only.', params: KeyParams, response: { 200: PersonalApiKey } } },
    async (request) => {
      const key = await ownKey(request.auth!, request.params.id);
      const rolled = await parts.access.rollPersonalKey(key.id, actorOf(request));
      return keyBody((await queries.key(key.id))!, rolled.key);
    },
  );

  app.delete(
    '/api/personal_api_keys/:id/',
    { config: { ...write, docs: { response: { 204: NoContent } } }, schema: { summary: 'Revokes a personal API key: it stops working at once.', params: KeyParams } },
    async (request, reply) => {
      const key = await ownKey(request.auth!, request.params.id);
      await parts.access.revokePersonalKey(key.id, actorOf(request));
      return reply.status(204).send();
    },
  );
};
