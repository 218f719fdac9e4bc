import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authenticationFailed, forbidden } from '../errors';
import { JsonObject } from '../schema/common';
import type { Parts } from '../runtime-parts';

const NotModified = z.null().meta({ description: 'Not modified: If-None-Match matched the ETag (no body).' });
const MISSING_TOKEN = 'Missing project API key: pass ?token=<project API key>.';
const Query = z.object({
  token: z.string({ error: MISSING_TOKEN }).min(1, MISSING_TOKEN).meta({ description: 'The project API key of the project whose flags to load.' }),
  send_cohorts: z.string().optional().meta({ description: 'Accepted for posthog-node; cohorts are always sent.' }),
});
const Definitions = z
  .object({
    flags: z.array(
      z.object({
        id: z.number().int(),
        team_id: z.number().int(),
        key: z.string(),
        name: z.string(),
        active: z.boolean(),
        deleted: z.boolean(),
        filters: JsonObject,
        ensure_experience_continuity: z.boolean(),
        version: z.number().int(),
      }),
    ),
    group_type_mapping: z.record(z.string(), z.string()).meta({ description: 'Group type by index.' }),
    cohorts: z.record(z.string(), z.unknown()).meta({ description: 'The cohorts the flags name, by id.' }),
  })
  .meta({ id: 'FlagDefinitions' });

/**
 * Flag definitions for SDK local evaluation (posthog-node polls these with its personal key and
 * If-None-Match). The project comes from `token`; the key must have access to it.
 */
export const localEvaluationRoutes: FastifyPluginAsyncZod<Parts<'projectIdForToken' | 'flagCache' | 'flagSource', 'access' | 'ingestion'>> = async (app, runtime) => {

  for (const path of ['/flags/definitions', '/api/feature_flag/local_evaluation'])
    app.get(
      path,
      {
        config: { scope: 'feature_flag:read', docs: { response: { 304: NotModified } } },
        schema: { summary: "The project's flag definitions for SDK local evaluation (ETag / If-None-Match).", tags: ['feature_flags'], querystring: Query, response: { 200: Definitions } },
      },
      async (request, reply) => {
        const { token } = request.query;
        const projectId = await runtime.projectIdForToken(token);
        if (projectId === undefined) throw authenticationFailed('Project API key invalid.');
        const project = (await runtime.queries.access.project(projectId))!;
        const auth = request.auth!;
        if (!auth.organizationIds.includes(project.organization_id) || (auth.projectFilter && !auth.projectFilter.includes(projectId)))
          throw forbidden('API key does not have access to the requested project.');

        const { rows, etag: flagsEtag } = await runtime.flagCache.get(projectId);
        const mapping = Object.fromEntries((await runtime.queries.ingestion.groupTypeMappings(projectId)).map((m) => [String(m.group_type_index), m.group_type]));
        const cohorts = runtime.flagSource.cohortDefinitions?.(projectId) ?? {};
        const etag = `"${createHash('sha1').update(flagsEtag).update(JSON.stringify(mapping)).update(JSON.stringify(cohorts)).digest('hex')}"`;
        reply.header('etag', etag);
        // No body at all (not even a serialised null): the plain reply, outside the 200 schema.
        if (request.headers['if-none-match'] === etag) return (reply as FastifyReply).status(304).send();
        return {
          flags: rows.map((f) => ({
            id: f.id,
            team_id: f.project_id,
            key: f.key,
            name: f.name,
            active: f.active,
            deleted: f.deleted,
            filters: f.filters,
            ensure_experience_continuity: f.ensure_experience_continuity,
            version: f.version,
          })),
          group_type_mapping: mapping,
          cohorts,
        };
      },
    );
};
