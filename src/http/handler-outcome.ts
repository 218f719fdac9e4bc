import type { FastifyReply } from 'fastify';

/**
 * What fastify does with an async handler's rejection, for a handler that answers from a callback:
 * the error goes through the app's error handler, unless an answer already went out. A thrown
 * value that is no Error is wrapped in one (fastify tells errors from bodies by `instanceof Error`
 * outside its own promise wrapper); the error handler answers either with the same 500.
 */
export function sendHandlerError(reply: FastifyReply, err: unknown): void {
  if (reply.sent) {
    reply.log.error({ err }, 'Promise errored, but reply.sent = true was set');
    return;
  }
  reply.send(err instanceof Error ? err : new Error(String(err)));
}
