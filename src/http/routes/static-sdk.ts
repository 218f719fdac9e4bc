import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { notFoundError } from '../errors';
import { ErrorBody } from '../schema/common';

const asset = { 200: { description: 'The file (ETag / If-None-Match; 304 when unchanged).', content: { 'application/javascript': { schema: z.string() } } }, 404: ErrorBody };

/** posthog-js as installed with the service: its `dist/` is what `/static/` serves. */
const packageJson = createRequire(import.meta.url).resolve('posthog-js/package.json');
export const SDK_DIST = join(dirname(packageJson), 'dist');
export const SDK_VERSION: string = JSON.parse(readFileSync(packageJson, 'utf8')).version;

const TYPES: [RegExp, string][] = [
  [/\.(js|mjs|cjs)$/, 'application/javascript; charset=utf-8'],
  [/\.(map|json)$/, 'application/json; charset=utf-8'],
];

/**
 * `/static/<file>` (what the snippet loads: `array.js`) is not versioned, so a day fresh then
 * revalidated by ETag, a week stale while revalidating. `/static/<version>/<file>` (how posthog-js
 * lazy-loads its extensions) never changes: a year, immutable.
 */
export const SDK_CACHE_CONTROL = 'public, max-age=86400, stale-while-revalidate=604800';
export const SDK_VERSIONED_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export interface SdkFile {
  name: string;
  path: string;
  contentType: string;
  etag: string;
}

/**
 * The allowlist, from the dist directory's listing at start-up: only its top-level script, map and
 * JSON files. A request names one of them exactly or gets 404; no path is ever joined from input.
 */
export function sdkFiles(dist = SDK_DIST): Map<string, SdkFile> {
  const files = new Map<string, SdkFile>();
  for (const entry of readdirSync(dist, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const type = TYPES.find(([re]) => re.test(entry.name))?.[1];
    if (!type) continue;
    const path = join(dist, entry.name);
    const stat = statSync(path);
    const etag = `"${createHash('sha1').update(`${SDK_VERSION}/${entry.name}/${stat.size}/${stat.mtimeMs}`).digest('hex').slice(0, 20)}"`;
    files.set(entry.name, { name: entry.name, path, contentType: type, etag });
  }
  return files;
}

/** Lazily read file bodies, kept once read (the whole dist is a few MB of scripts). */
export function sdkBodies() {
  const bodies = new Map<string, Buffer>();
  return (file: SdkFile): Buffer => {
    let body = bodies.get(file.name);
    if (!body) bodies.set(file.name, (body = readFileSync(file.path)));
    return body;
  };
}

/**
 * `GET /static/<file>` and `/static/<version>/<file>`: posthog-js's own scripts (array.js and the
 * extensions it lazy-loads), no CDN. Only the installed version exists: an extension of another
 * version could not be mixed with the core that asked for it.
 */
export const staticSdkRoutes: FastifyPluginAsync = async (app) => {
  const files = sdkFiles();
  const body = sdkBodies();
  const serve = (name: string, cacheControl: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    const file = files.get(name);
    if (!file) return reply.status(404).send(notFoundError().body);
    reply.header('etag', file.etag).header('cache-control', cacheControl);
    if (request.headers['if-none-match'] === file.etag) return reply.status(304).send();
    return reply.type(file.contentType).send(body(file));
  };
  const docs = { response: asset };
  app.get<{ Params: { file: string } }>('/static/:file', { config: { docs }, schema: { summary: 'A posthog-js file (array.js, …), as installed.' } }, (request, reply) => serve(request.params.file, SDK_CACHE_CONTROL)(request, reply));
  app.get<{ Params: { version: string; file: string } }>('/static/:version/:file', { config: { docs }, schema: { summary: 'A posthog-js extension of the installed version (immutable).' } }, (request, reply) =>
    request.params.version === SDK_VERSION
      ? serve(request.params.file, SDK_VERSIONED_CACHE_CONTROL)(request, reply)
      : reply.status(404).send(notFoundError().body),
  );
};
