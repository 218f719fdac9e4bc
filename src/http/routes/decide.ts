import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { decodeBody } from '../../ingest/decode-body';
import { extractApiKey } from '../../ingest/flag-body';
import { clientIp } from '../../ingest/client-ip';
import { invalidApiKey, missingApiKey, malformedRequest } from '../../ingest/errors';
import { decideResponse, flagsResponse, parseApiVersion } from '../../flags';
import { FlagsV2Parts, evaluateRequest, flagsV2Body, flagsV2Parts, parseFlagRequest } from '../../flags/serving';
import { arrivalOrderQueue } from '../arrival-order';
import { whenReady } from '../../runtime/loading-cache';
import { keyGateFor, type KeyBeforeBody, refuseBeforeBody } from '../../ingest/refuse-before-body';
import { asPublicEndpoint, corsPreflight, rawBody } from '../public-endpoint';
import { sendJsonParts } from '../send-json-parts';
import { sendHandlerError } from '../handler-outcome';
import { FlagsAnswer, FlagsBody, FlagsQuery, SDK_CONTENT_TYPES } from '../schema/sdk';
import type { Limits, Parts } from '../runtime-parts';
import type { EvaluateAllResult } from '../../flags/types';
import { aheadOfRouter } from '../ahead-of-router';
import { type FlagCall, flagsV2Lane } from './flags-lane';

/**
 * Public flag evaluation: /decide (v1..4) and /flags (v1, v2, config=true). Project key in the body;
 * every body form and compression of ingestion. Definitions come from memory, persons from one read.
 */
export const decideRoutes: FastifyPluginAsync<Parts<'projectIdForToken' | 'flagSource' | 'remoteConfig' | 'flagCache'> & { config: Limits }> = async (app, deps) => {
  const { config } = deps;
  const runtime = deps;

  asPublicEndpoint(app);

  const evaluate = (call: FlagCall) => {
    const { query, body, headers } = call;
    // A key in the query string is checked before the body is decoded: an unknown one costs no inflation.
    const early = refuseBeforeBody(query, body.length, runtime.projectIdForToken);
    // A few-KB body (every SDK's) decodes in this turn; only a large compressed one is inflated off the loop.
    return whenReady(early, (early) =>
      whenReady(
        decodeBody({
          body,
          contentType: headers['content-type'],
          contentEncoding: headers['content-encoding'],
          query,
          maxDecompressedBytes: config.EVENT_BODY_LIMIT,
          keyGate: keyGateFor(early, body.length, runtime.projectIdForToken),
        }),
        (payload) => evaluatePayload(call, payload, early),
      ),
    );
  };

  const evaluatePayload = (call: FlagCall, payload: unknown, early: KeyBeforeBody | undefined) => {
    const parsed = parseFlagRequest(payload);
    if (!parsed.success) throw malformedRequest(`${parsed.error.issues[0].path.join('.')}: ${parsed.error.issues[0].message}`);
    const req = parsed.data;
    const token = early?.apiKey ?? extractApiKey(req);
    if (!token) throw missingApiKey();
    // Served from memory: a known token and a project's cached definitions and config answer in
    // this turn; only a miss (first request, or after a change) waits for the read model.
    return whenReady(runtime.projectIdForToken(token), (projectId) => {
      if (projectId === undefined) throw invalidApiKey();
      if (req.distinct_id === undefined || req.distinct_id === '') throw malformedRequest('distinct_id is required');
      const ip = clientIp(call.headers, call.remoteAddress);
      const result = req.disable_flags
        ? { flags: {}, errorsWhileComputingFlags: false }
        : evaluateRequest(runtime.flagSource, projectId, { ...req, distinct_id: req.distinct_id }, ip, new Date());
      return whenReady(result, (result) => ({ result, query: call.query, projectId }));
    });
  };

  // posthog-node's path (v2, no config): pre-serialised fragments instead of a fresh 50-key
  // object, and for a remembered answer its bytes, made once.
  const v2Answer = (result: EvaluateAllResult) =>
    runtime.flagSource.memo?.holds(result) ? flagsV2Parts(result, randomUUID()) : flagsV2Body(result, randomUUID());

  // The project's remote-config fields (compat §6) ride along wherever config is sent.
  const configOverrides = (projectId: number) =>
    whenReady(runtime.remoteConfig.get(projectId), (entry) =>
      whenReady(runtime.flagCache.get(projectId), (flags) => ({
        ...entry?.fields,
        hasFeatureFlags: flags.definitions.some((d) => d.active),
      })),
    );

  // Decoding and evaluation are the CPU-heavy part: they run in arrival order, in batches whose
  // answers are written together (see arrival-order.ts).
  const inOrder = arrivalOrderQueue();
  const decide = (request: FastifyRequest) =>
    inOrder(() =>
      whenReady(evaluate(callOf(request)), ({ result, query, projectId }) =>
        whenReady(configOverrides(projectId), (overrides) =>
          decideResponse(result, parseApiVersion(query.v), { requestId: randomUUID(), config: true, configOverrides: overrides }),
        ),
      ),
    );
  const flags = (request: FastifyRequest, reply: FastifyReply) => {
    inOrder.run(
      () =>
        whenReady(evaluate(callOf(request)), ({ result, query, projectId }) => {
          const version = parseApiVersion(query.v);
          const config = query.config === 'true' || query.config === '1';
          if (version !== undefined && version >= 2 && !config) return v2Answer(result);
          return whenReady(configOverrides(projectId), (overrides) =>
            flagsResponse(result, version, { requestId: randomUUID(), config, configOverrides: overrides }),
          );
        }),
      (failed, answer) => answerFlags(reply, failed, answer),
    );
  };
  // Documented only: the body is decoded here (every SDK form), and /flags?v=2 answers pre-serialised bytes.
  const docs = { body: FlagsBody, querystring: FlagsQuery, response: { 200: FlagsAnswer }, consumes: SDK_CONTENT_TYPES };
  for (const path of ['/decide', '/flags']) {
    const summary = path === '/flags' ? 'Evaluates the feature flags for a distinct id.' : 'Flags and config for a distinct id (older /flags).';
    app.post(path, { config: { docs }, schema: { summary } }, path === '/decide' ? decide : flags);
    app.options(path, corsPreflight('POST, OPTIONS'));
  }
  // posthog-node's call, taken ahead of the router (flags-lane.ts); the route above answers it the same way.
  // Once the app closes, requests go to the router, which answers them 503 as it does every other.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  const lane = flagsV2Lane({ inOrder, answer: (call) => whenReady(evaluate(call), ({ result }) => v2Answer(result)), log: app.log });
  aheadOfRouter(app.server, (req, res) => !closing && lane(req, res));
};

const callOf = (request: FastifyRequest): FlagCall => ({
  query: request.query as Record<string, string | undefined>,
  body: rawBody(request),
  headers: request.headers,
  remoteAddress: request.socket.remoteAddress,
});

/**
 * Sends a /flags outcome as fastify sends what an async handler resolves or rejects with (the
 * handler is a callback one, see ArrivalOrder.run): a body, or an error through the error handler.
 */
function answerFlags(reply: FastifyReply, failed: boolean, answer: unknown): void {
  if (failed) return sendHandlerError(reply, answer);
  try {
    if (typeof answer === 'string') reply.type('application/json; charset=utf-8').send(answer);
    else if (answer instanceof FlagsV2Parts) sendJsonParts(reply, answer.head, answer.tail);
    else reply.send(answer);
  } catch (err) {
    sendHandlerError(reply, err);
  }
}
