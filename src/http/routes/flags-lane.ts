import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { FlagsV2Parts } from '../../flags/serving';
import type { MaybePromise } from '../../runtime/loading-cache';
import type { ArrivalOrder } from '../arrival-order';
import { errorAnswer } from '../errors';
import type { Lane } from '../ahead-of-router';

/** What flag evaluation reads of a request, whichever way it arrived. */
export interface FlagCall {
  query: Record<string, string | undefined>;
  body: Buffer;
  headers: IncomingHttpHeaders;
  remoteAddress: string | undefined;
}

/** Bodies past this go through the router, whose limits and streaming apply; an SDK's is ~200 bytes. */
const LANE_BODY_LIMIT = 64 * 1024;

/**
 * posthog-node's `POST /flags/?v=2`, the request every server-side flag check makes, answered
 * ahead of fastify's router. The route in decide.ts answers the same request the same way (same
 * evaluation, same arrival-order queue, same error shapes and CORS headers); this lane only leaves
 * out the router's per-request work (request and reply objects, routing, hooks, the content-type
 * parser, the reply's header bookkeeping), which cost more than the evaluation of a remembered
 * answer. It takes only the plain form: exactly this query, a declared length within
 * LANE_BODY_LIMIT, no content encoding. Anything else (another query, compression, chunked or
 * large bodies) goes to the router.
 */
export function flagsV2Lane(deps: { inOrder: ArrivalOrder; answer: (call: FlagCall) => MaybePromise<FlagsV2Parts | string>; log: FastifyBaseLogger }): Lane {
  const { inOrder, answer, log } = deps;
  return (req, res) => {
    if (req.method !== 'POST' || (req.url !== '/flags/?v=2' && req.url !== '/flags?v=2')) return false;
    const { headers } = req;
    const declared = headers['content-length'];
    if (declared === undefined || headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    const length = Number(declared);
    if (!(length >= 0 && length <= LANE_BODY_LIMIT)) return false;
    readBody(req, length, (body) => {
      const call: FlagCall = { query: V2_QUERY, body, headers, remoteAddress: req.socket.remoteAddress };
      inOrder.run(
        () => answer(call),
        (failed, outcome) => (failed ? sendError(res, headers, outcome, log) : sendAnswer(res, headers, outcome as FlagsV2Parts | string)),
      );
    });
    return true;
  };
}

const V2_QUERY: Record<string, string | undefined> = Object.freeze({ v: '2' });

/** The body as one Buffer once `length` bytes arrived (node's parser ends the stream there). */
function readBody(req: IncomingMessage, length: number, then: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => then(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length)));
  // An aborted request has nobody to answer.
  req.on('error', () => req.destroy());
}

/** The CORS headers every public path answers with (public-endpoint.ts's setPublicCors). */
function corsHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  return { 'access-control-allow-origin': headers.origin ?? '*', 'access-control-allow-credentials': 'true', vary: 'origin' };
}

function sendAnswer(res: ServerResponse, headers: IncomingHttpHeaders, answer: FlagsV2Parts | string): void {
  const out = corsHeaders(headers);
  out['content-type'] = 'application/json; charset=utf-8';
  if (typeof answer === 'string') {
    out['content-length'] = Buffer.byteLength(answer);
    res.writeHead(200, out);
    res.end(answer);
    return;
  }
  out['content-length'] = answer.head.length + Buffer.byteLength(answer.tail);
  res.writeHead(200, out);
  // Corked: both parts leave in one writev when `end` uncorks.
  res.socket?.cork();
  res.write(answer.head);
  res.end(answer.tail);
}

/** What the app's error handler (errors.ts) answers for the same error. */
function sendError(res: ServerResponse, headers: IncomingHttpHeaders, err: unknown, log: FastifyBaseLogger): void {
  const { api, retryAfter } = errorAnswer(err);
  if (api.status >= 500) log.error({ err }, 'unhandled error');
  const out = corsHeaders(headers);
  if (retryAfter !== undefined) out['retry-after'] = retryAfter;
  const text = JSON.stringify(api.body);
  out['content-type'] = 'application/json; charset=utf-8';
  out['content-length'] = Buffer.byteLength(text);
  res.writeHead(api.status, out);
  res.end(text);
}
