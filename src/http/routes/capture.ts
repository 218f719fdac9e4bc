import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { clientIp } from '../../ingest/client-ip';
import { admitWithin, configuredLimits, RateLimitedError } from '../../ingest/rate-limited';
import { asPublicEndpoint, corsPreflight, rawBody } from '../public-endpoint';
import { ErrorBody } from '../schema/common';
import { BatchBody, CaptureAnswer, CaptureBody, SDK_CONTENT_TYPES, SdkQuery } from '../schema/sdk';
import type { Limits, Parts } from '../runtime-parts';

const SINGLE = ['/capture', '/e', '/i/v0/e', '/track', '/engage'];
const BATCH = ['/batch'];

/** The document's view of these routes: the pipeline decodes and validates the body itself. */
const docs = (body: typeof CaptureBody | typeof BatchBody, method: 'GET' | 'POST') => ({
  ...(method === 'POST' ? { body } : {}),
  querystring: method === 'GET' ? SdkQuery.extend({ data: z.string().optional().meta({ description: 'The body, base64-encoded JSON.' }) }) : SdkQuery,
  response: { 200: CaptureAnswer, 429: ErrorBody.meta({ description: 'Over the rate limit; see Retry-After.' }) },
  consumes: SDK_CONTENT_TYPES,
});

/**
 * Public ingestion endpoints (project API key in the body). The body is taken raw: the pipeline
 * decodes every form and compression the SDKs use and bounds the decompressed size.
 */
export const captureRoutes: FastifyPluginAsync<Parts<'ingest'> & { config: Limits }> = async (app, { ingest: pipeline, config }) => {
  const admit = admitWithin(configuredLimits(config));

  asPublicEndpoint(app);

  const handler = (decompressedLimit: number) => async (request: FastifyRequest, reply: FastifyReply) => {
    // Resolves once the whole request is one durable append: only then is it acknowledged.
    try {
      await pipeline.ingest({
        body: rawBody(request),
        contentType: request.headers['content-type'],
        contentEncoding: request.headers['content-encoding'],
        query: request.query as Record<string, string | undefined>,
        ip: clientIp(request.headers, request.socket.remoteAddress),
        maxDecompressedBytes: decompressedLimit,
        admit,
      });
    } catch (err) {
      if (!(err instanceof RateLimitedError)) throw err;
      return reply.status(429).header('retry-after', String(err.retryAfterSeconds)).send(err.toBody());
    }
    return { status: 1 };
  };

  for (const [paths, limit, decompressed, body] of [
    [SINGLE, config.EVENT_BODY_LIMIT, config.EVENT_BODY_LIMIT, CaptureBody],
    [BATCH, config.BATCH_BODY_LIMIT, config.BATCH_DECOMPRESSED_LIMIT, BatchBody],
  ] as const) {
    for (const path of paths) {
      const summary = body === BatchBody ? 'Captures a batch of events.' : 'Captures an event (or a batch).';
      app.post(path, { bodyLimit: limit, config: { docs: docs(body, 'POST') }, schema: { summary } }, handler(decompressed));
      app.get(path, { config: { docs: docs(body, 'GET') }, schema: { summary: `${summary} The body as \`?data=\`.` } }, handler(decompressed));
      app.options(path, corsPreflight('GET, POST, OPTIONS'));
    }
  }
};
