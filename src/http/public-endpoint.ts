import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * What the public SDK endpoints (ingestion, flag evaluation) share: the body is taken raw (the
 * ingest decoder handles every form and compression) and any origin may call them, since browsers
 * post from the customer's site and the project key is public.
 */
export function asPublicEndpoint(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.addHook('onRequest', async (request, reply) => {
    reply.header('access-control-allow-origin', request.headers.origin ?? '*');
    reply.header('access-control-allow-credentials', 'true');
    reply.header('vary', 'origin');
  });
}

/** The CORS preflight answer for a public path. */
export const corsPreflight = (methods: string) => async (request: FastifyRequest, reply: FastifyReply) =>
  reply
    .header('access-control-allow-methods', methods)
    .header('access-control-allow-headers', request.headers['access-control-request-headers'] ?? '*')
    .status(200)
    .send();

export const rawBody = (request: FastifyRequest): Buffer => (Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0));
