import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFoundError } from './errors';

/**
 * What the public SDK endpoints (ingestion, flag evaluation) share: the body is taken raw (the
 * ingest decoder handles every form and compression). Their CORS headers come from
 * `registerPublicCors`, registered once on the root app.
 */
export function asPublicEndpoint(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
}

/**
 * Paths a browser calls from the customer's site: everything outside the management API, plus
 * the API paths posthog-js reads with the public project key. Their answers (errors and unknown
 * paths included) must carry CORS headers, or the browser hides them behind a CORS error.
 */
const PUBLIC_API = ['/api/surveys', '/api/early_access_features'];
export const isPublicPath = (url: string): boolean => {
  const path = url.split('?', 1)[0];
  if (path === '/_health' || path.startsWith('/_health/')) return false;
  if (!path.startsWith('/api/') && path !== '/api') return true;
  return PUBLIC_API.some((p) => path === p || path.startsWith(`${p}/`));
};

/** Any origin may call a public path: the project key is public and browsers post from any site. */
export function setPublicCors(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('access-control-allow-origin', request.headers.origin ?? '*');
  reply.header('access-control-allow-credentials', 'true');
  reply.header('vary', 'origin');
}

/**
 * CORS for every public path, whatever answers it: routes, errors, the not-found handler, and an
 * `OPTIONS` preflight for any public path (an unknown one too, so the browser sees the real 404).
 */
export function registerPublicCors(app: FastifyInstance): void {
  // A callback hook: an async one costs every request a promise.
  app.addHook('onRequest', (request, reply, done) => {
    if (isPublicPath(request.url)) setPublicCors(request, reply);
    done();
  });
  app.options('/*', async (request, reply) => {
    if (!isPublicPath(request.url)) return reply.status(404).send(notFoundError().body);
    return corsPreflight('GET, POST, OPTIONS')(request, reply);
  });
}

/** The CORS preflight answer for a public path. */
export const corsPreflight = (methods: string) => async (request: FastifyRequest, reply: FastifyReply) =>
  reply
    .header('access-control-allow-methods', methods)
    .header('access-control-allow-headers', request.headers['access-control-request-headers'] ?? '*')
    .header('access-control-max-age', '86400')
    .status(200)
    .send();

export const rawBody = (request: FastifyRequest): Buffer => (Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0));
