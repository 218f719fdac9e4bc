import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import { notFoundError } from '../errors';
import { ErrorBody } from '../schema/common';

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

const page = { response: { 200: { description: 'The console page (CSP: scripts and styles from this service only, no framing).', content: { 'text/html': { schema: z.string() } } }, 404: ErrorBody } };
const asset = { response: { 200: { description: "The console's script or stylesheet.", content: { 'text/javascript': { schema: z.string() }, 'text/css': { schema: z.string() } } }, 404: ErrorBody } };

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
  app.get('/', { config: { docs: page }, schema: { summary: 'The operator console (sign in with a personal API key).', tags: ['console'] } }, async (_request, reply) => {
    const body = file('index.html');
    if (!body) throw notFoundError('The console is not built: run `npm run build`.');
    return secure(reply).type(TYPES['index.html']).send(body);
  });
  app.get<{ Params: { file: string } }>('/console/:file', { config: { docs: asset }, schema: { summary: 'A console asset (app.js, app.css).', tags: ['console'] } }, async (request, reply) => {
    const body = file(request.params.file);
    if (!body) throw notFoundError();
    return secure(reply).type(TYPES[request.params.file]).send(body);
  });
};
