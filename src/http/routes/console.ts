import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { notFoundError } from '../errors';

/**
 * The console page may load scripts, styles and data from this service only, and no one may frame
 * it (clickjacking a signed-in operator). Styles set from script (uPlot, preact) go through the
 * CSSOM, which `style-src 'self'` allows; nothing inline is needed.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** The built console: dist/console beside the bundled service, or the checkout's dist/ when run from source. */
function consoleDir(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const dir of [resolve(here, 'console'), resolve(here, '../../../dist/console')]) if (existsSync(resolve(dir, 'index.html'))) return dir;
  return null;
}

function secure(reply: FastifyReply) {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache');
}

/** `GET /`: the operator console, static files from the build; it calls the public API only. */
export const consoleRoutes: FastifyPluginAsync = async (app) => {
  const dir = consoleDir();
  const files = new Map<string, Buffer>();
  const file = (name: string) => {
    if (!dir || !TYPES[name]) return null;
    let body = files.get(name);
    if (!body && existsSync(resolve(dir, name))) files.set(name, (body = readFileSync(resolve(dir, name))));
    return body ?? null;
  };
  app.get('/', { schema: { summary: 'The operator console.', hide: true } }, async (_request, reply) => {
    const body = file('index.html');
    if (!body) throw notFoundError('The console is not built: run `npm run build`.');
    return secure(reply).type(TYPES['index.html']).send(body);
  });
  app.get<{ Params: { file: string } }>('/console/:file', { schema: { summary: 'A console asset.', hide: true } }, async (request, reply) => {
    const body = file(request.params.file);
    if (!body) throw notFoundError();
    return secure(reply).type(TYPES[request.params.file]).send(body);
  });
};
