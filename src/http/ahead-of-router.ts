import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Takes a request before the router sees it, or answers false to leave it to the router. */
export type Lane = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Puts `lane` in front of the server's request handlers (fastify's router): a request the lane
 * takes is answered by it alone; any other goes on exactly as before. `inject` (light-my-request)
 * calls fastify's handler directly, so it never passes through here.
 */
export function aheadOfRouter(server: Server, lane: Lane): void {
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (lane(req, res)) return;
    for (const handler of handlers) handler(req, res);
  });
}
