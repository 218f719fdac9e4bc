import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { decodeBody } from '../../ingest/decode-body';
import { extractApiKey } from '../../ingest/flag-body';
import { clientIp } from '../../ingest/client-ip';
import { invalidApiKey, missingApiKey, malformedRequest } from '../../ingest/errors';
import { decideResponse, flagsResponse, parseApiVersion } from '../../flags';
import { FlagRequest, evaluateRequest, flagsV2Body } from '../../flags/serving';
import { arrivalOrderQueue } from '../arrival-order';
import { asPublicEndpoint, corsPreflight, rawBody } from '../public-endpoint';

/**
 * Public flag evaluation: /decide (v1..4) and /flags (v1, v2, config=true). Project key in the body;
 * every body form and compression of ingestion. Definitions come from memory, persons from one read.
 */
export const decideRoutes: FastifyPluginAsync = async (app) => {
  const { runtime, config } = app;

  asPublicEndpoint(app);

  const evaluate = (request: FastifyRequest) => {
    const query = request.query as Record<string, string | undefined>;
    const body = rawBody(request);
    const payload = decodeBody({
      body,
      contentType: request.headers['content-type'],
      contentEncoding: request.headers['content-encoding'],
      query,
      maxDecompressedBytes: config.EVENT_BODY_LIMIT,
    });
    const parsed = FlagRequest.safeParse(payload);
    if (!parsed.success) throw malformedRequest(`${parsed.error.issues[0].path.join('.')}: ${parsed.error.issues[0].message}`);
    const req = parsed.data;
    const token = extractApiKey(req);
    if (!token) throw missingApiKey();
    const projectId = runtime.projectIdForToken(token);
    if (projectId === undefined) throw invalidApiKey();
    if (req.distinct_id === undefined || req.distinct_id === '') throw malformedRequest('distinct_id is required');
    const ip = clientIp(request.headers, request.socket.remoteAddress);
    const result = req.disable_flags
      ? { flags: {}, errorsWhileComputingFlags: false }
      : evaluateRequest(runtime.flagSource, projectId, { ...req, distinct_id: req.distinct_id }, ip, new Date());
    return { result, query, projectId };
  };

  // The project's remote-config fields (compat §6) ride along wherever config is sent.
  const configOverrides = (projectId: number) => ({
    ...runtime.remoteConfig.get(projectId)?.fields,
    hasFeatureFlags: runtime.flagCache.get(projectId).definitions.some((d) => d.active),
  });

  // Decoding and evaluation are the CPU-heavy part: they run in arrival order, in batches whose
  // answers are written together (see arrival-order.ts).
  const inOrder = arrivalOrderQueue();
  const decide = (request: FastifyRequest) =>
    inOrder(() => {
      const { result, query, projectId } = evaluate(request);
      return decideResponse(result, parseApiVersion(query.v), { requestId: randomUUID(), config: true, configOverrides: configOverrides(projectId) });
    });
  const flags = async (request: FastifyRequest, reply: FastifyReply) => {
    const answer = await inOrder(() => {
      const { result, query, projectId } = evaluate(request);
      const version = parseApiVersion(query.v);
      const config = query.config === 'true' || query.config === '1';
      // posthog-node's path (v2, no config): pre-serialised fragments instead of a fresh 50-key object.
      if (version !== undefined && version >= 2 && !config) return flagsV2Body(result, randomUUID());
      return flagsResponse(result, version, { requestId: randomUUID(), config, configOverrides: configOverrides(projectId) });
    });
    return typeof answer === 'string' ? reply.type('application/json; charset=utf-8').send(answer) : answer;
  };
  for (const path of ['/decide', '/flags']) {
    app.post(path, path === '/decide' ? decide : flags);
    app.options(path, corsPreflight('POST, OPTIONS'));
  }
};
