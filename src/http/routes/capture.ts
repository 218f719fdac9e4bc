import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { clientIp } from '../../ingest/client-ip';
import { admitWithin, configuredLimits, RateLimitedError } from '../../ingest/rate-limited';
import { asPublicEndpoint, corsPreflight, rawBody } from '../public-endpoint';

const SINGLE = ['/capture', '/e', '/i/v0/e', '/track', '/engage'];
const BATCH = ['/batch'];

/**
 * Public ingestion endpoints (project API key in the body). The body is taken raw: the pipeline
 * decodes every form and compression the SDKs use and bounds the decompressed size.
 */
export const captureRoutes: FastifyPluginAsync = async (app) => {
  const { config } = app;
  const pipeline = app.runtime.ingest;
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

  for (const [paths, limit, decompressed] of [
    [SINGLE, config.EVENT_BODY_LIMIT, config.EVENT_BODY_LIMIT],
    [BATCH, config.BATCH_BODY_LIMIT, config.BATCH_DECOMPRESSED_LIMIT],
  ] as const) {
    for (const path of paths) {
      app.post(path, { bodyLimit: limit }, handler(decompressed));
      app.get(path, handler(decompressed));
      app.options(path, corsPreflight('GET, POST, OPTIONS'));
    }
  }
};
