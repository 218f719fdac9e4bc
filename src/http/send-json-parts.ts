import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * Answers 200 with a JSON body given as shared bytes and a short text ending, written to the
 * socket as they are: fastify's `send` takes one payload, and joining the two would copy the
 * bytes into a new Buffer per answer. The reply is hijacked, so its onSend and onResponse hooks do
 * not run (the app registers none); the headers set so far (CORS) are sent as fastify would.
 *
 * The headers go to `writeHead` as one object, as fastify's own `send` passes them (one
 * `setHeader` each kept a second copy of them on the response). The socket is corked around the
 * two writes: `end` uncorks it, so both leave in one `writev`; a `write` on an uncorked socket
 * corks it itself and schedules the uncork on a tick of its own, per answer.
 */
export function sendJsonParts(reply: FastifyReply, head: Buffer, tail: string): void {
  reply.hijack();
  const res = reply.raw;
  const headers = reply.getHeaders() as OutgoingHttpHeaders;
  // As before: a header set to undefined is not sent (node refuses it as a value).
  for (const name in headers) if (headers[name] === undefined) delete headers[name];
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['content-length'] = head.length + Buffer.byteLength(tail);
  res.writeHead(200, headers);
  res.socket?.cork();
  res.write(head);
  res.end(tail);
}
