import { createHash } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { authenticationFailed, forbidden, invalidInput } from '../errors';

/**
 * Flag definitions for SDK local evaluation (posthog-node polls these with its personal key and
 * If-None-Match). The project comes from `token`; the key must have access to it.
 */
export const localEvaluationRoutes: FastifyPluginAsync = async (app) => {
  const { runtime } = app;

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { token } = request.query as { token?: string };
    if (!token) throw invalidInput('Missing project API key: pass ?token=<project API key>.', 'token');
    const projectId = runtime.projectIdForToken(token);
    if (projectId === undefined) throw authenticationFailed('Project API key invalid.');
    const project = runtime.queries.access.project(projectId)!;
    const auth = request.auth!;
    if (!auth.organizationIds.includes(project.organization_id) || (auth.projectFilter && !auth.projectFilter.includes(projectId)))
      throw forbidden('API key does not have access to the requested project.');

    const { rows, etag: flagsEtag } = runtime.flagCache.get(projectId);
    const mapping = Object.fromEntries((await runtime.queries.ingestion.groupTypeMappings(projectId)).map((m) => [String(m.group_type_index), m.group_type]));
    const cohorts = runtime.flagSource.cohortDefinitions?.(projectId) ?? {};
    const etag = `"${createHash('sha1').update(flagsEtag).update(JSON.stringify(mapping)).update(JSON.stringify(cohorts)).digest('hex')}"`;
    reply.header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.status(304).send();
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
  };

  for (const path of ['/flags/definitions', '/api/feature_flag/local_evaluation'])
    app.get(path, { config: { scope: 'feature_flag:read' } }, handler);
};
