import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors';

/** POSTs that only read: flag evaluation answers from the read models and writes nothing. */
const READS_BY_POST = new Set(['/flags', '/decide']);
/** GETs that write: the ingestion paths take the body as `?data=` for old clients. */
const WRITES_BY_GET = new Set(['/capture', '/e', '/i/v0/e', '/track', '/engage', '/batch']);

/**
 * READ_ONLY=true: the service serves its directory as it stands (a replay `--until` a point, or a
 * copy an auditor reads) and refuses every write, ingestion included, with 405 in the error shape,
 * before any body is read. Reads, `as_of` and flag evaluation work.
 */
export function refuseWrites(app: FastifyInstance, pointText: string | null): void {
  const detail =
    'This service is read-only (READ_ONLY=true)' +
    (pointText ? `: it serves the data as it stood at ${pointText}` : '') +
    '; writes are refused. Send writes to the live service.';
  app.addHook('onRequest', async (request, reply) => {
    const route = (request.routeOptions.url ?? '').replace(/\/$/, '');
    const method = request.method;
    const reads = method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? !WRITES_BY_GET.has(route) || method === 'OPTIONS' : READS_BY_POST.has(route);
    if (reads) return;
    reply.header('allow', 'GET, HEAD, OPTIONS');
    throw new ApiError(405, { type: 'invalid_request', code: 'read_only', detail, attr: null });
  });
}
