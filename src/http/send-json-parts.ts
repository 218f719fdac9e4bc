import type { FastifyReply } from 'fastify';

/**
 * Answers 200 with a JSON body given as shared bytes and a short text ending, written to the
 * socket as they are: fastify's `send` takes one payload, and joining the two would copy the
 * bytes into a new Buffer per answer. The reply is hijacked, so its onSend and onResponse hooks do
 * not run (the app registers none); the headers set so far (CORS) are sent as fastify would.
 */
export function sendJsonParts(reply: FastifyReply, head: Buffer, tail: string): void {
  reply.hijack();
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', head.length + Buffer.byteLength(tail));
  res.writeHead(200);
  res.write(head);
  res.end(tail);
}
