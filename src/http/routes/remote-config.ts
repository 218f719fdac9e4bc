import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { configJson, configScript } from '../../remote-config';
import { notFoundError } from '../errors';
import { ErrorBody } from '../schema/common';
import { sdkBodies, sdkFiles, SDK_VERSION } from './static-sdk';
import type { Parts } from '../runtime-parts';

const VALID_TOKEN = /^[A-Za-z0-9_-]{1,200}$/;
// A malformed token is PostHog's 400 "Invalid token" on `token`, before any lookup.
const TokenParams = z.object({ token: z.string().regex(VALID_TOKEN, 'Invalid token').meta({ description: 'The project API key.' }) });
const RemoteConfig = z
  .looseObject({ token: z.string(), hasFeatureFlags: z.boolean() })
  .meta({ id: 'RemoteConfig', description: "PostHog's remote config: the project's SDK settings (session recording, autocapture, surveys, …)." });
const script = (description: string) => ({ 200: { description, content: { 'application/javascript': { schema: z.string() } } }, 404: ErrorBody });
const CONFIG_CACHE = 'public, max-age=300';
const BUNDLE_SECONDS = 300;

/**
 * Remote config, as posthog-js loads it (compat §6): `/array/<token>/config` (JSON),
 * `config.js` (sets `window._POSTHOG_REMOTE_CONFIG[token]`) and `array.js` (the SDK bundle followed
 * by that script). No auth: the token is the public project key. Served from memory.
 */
export const remoteConfigRoutes: FastifyPluginAsyncZod<Parts<'projectIdForToken' | 'remoteConfig' | 'flagCache'>> = async (app, runtime) => {
  const arrayJs = sdkFiles().get('array.js');
  const body = sdkBodies();

  const configFor = async (token: string) => {
    const projectId = await runtime.projectIdForToken(token);
    const entry = projectId === undefined ? undefined : await runtime.remoteConfig.get(projectId);
    if (projectId === undefined || !entry) throw notFoundError();
    // PostHog's rule: worth calling /flags only when an active flag exists.
    return configJson(entry.token, entry.fields, (await runtime.flagCache.get(projectId)).definitions.some((d) => d.active));
  };
  const cached = (reply: FastifyReply) => reply.header('cache-control', CONFIG_CACHE).header('vary', 'Origin, Referer');

  // The answers are written as they are (JSON or scripts with their caching headers): documented only.
  const route = (summary: string, response: Record<number, unknown>) => ({ config: { docs: { response } }, schema: { summary, params: TokenParams } });
  app.get('/array/:token/config', route('Remote config as JSON.', { 200: RemoteConfig, 404: ErrorBody }), async (request, reply) => {
    const config = await configFor(request.params.token);
    return cached(reply).type('application/json').send(config);
  });
  app.get('/array/:token/config.js', route('Remote config as a script (sets window._POSTHOG_REMOTE_CONFIG).', script('The script.')), async (request, reply) => {
    const script = configScript(await configFor(request.params.token));
    return cached(reply).type('application/javascript').send(script);
  });
  app.get('/array/:token/array.js', route('The posthog-js bundle followed by the remote config script.', script('The bundle (ETag / If-None-Match).')), async (request, reply) => {
    const script = configScript(await configFor(request.params.token));
    if (!arrayJs) throw notFoundError();
    const bundle = Buffer.concat([body(arrayJs), Buffer.from(`\n${script}\n`)]);
    const etag = `"${createHash('sha1').update(bundle).digest('hex').slice(0, 20)}"`;
    reply
      .header('etag', etag)
      .header('cache-control', `public, max-age=${BUNDLE_SECONDS}, stale-while-revalidate=${BUNDLE_SECONDS}, stale-if-error=${BUNDLE_SECONDS}`)
      .header('cache-tag', `posthog-js-${SDK_VERSION}, token:${request.params.token}`);
    if (request.headers['if-none-match'] === etag) return reply.status(304).send();
    return reply.type('application/javascript').send(bundle);
  });
};
