import { createHash } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { configJson, configScript } from '../../remote-config';
import { ApiError, notFoundError } from '../errors';
import { sdkBodies, sdkFiles, SDK_VERSION } from './static-sdk';

const VALID_TOKEN = /^[A-Za-z0-9_-]{1,200}$/;
const invalidToken = () => new ApiError(400, { type: 'validation_error', code: 'invalid_input', detail: 'Invalid token', attr: 'token' });
const CONFIG_CACHE = 'public, max-age=300';
const BUNDLE_SECONDS = 300;

/**
 * Remote config, as posthog-js loads it (compat §6): `/array/<token>/config` (JSON),
 * `config.js` (sets `window._POSTHOG_REMOTE_CONFIG[token]`) and `array.js` (the SDK bundle followed
 * by that script). No auth: the token is the public project key. Served from memory.
 */
export const remoteConfigRoutes: FastifyPluginAsync = async (app) => {
  const { runtime } = app;
  const arrayJs = sdkFiles().get('array.js');
  const body = sdkBodies();

  const configFor = async (token: string) => {
    if (!VALID_TOKEN.test(token)) throw invalidToken();
    const projectId = await runtime.projectIdForToken(token);
    const entry = projectId === undefined ? undefined : await runtime.remoteConfig.get(projectId);
    if (projectId === undefined || !entry) throw notFoundError();
    // PostHog's rule: worth calling /flags only when an active flag exists.
    return configJson(entry.token, entry.fields, (await runtime.flagCache.get(projectId)).definitions.some((d) => d.active));
  };
  const cached = (reply: FastifyReply) => reply.header('cache-control', CONFIG_CACHE).header('vary', 'Origin, Referer');

  type P = { Params: { token: string } };
  app.get<P>('/array/:token/config', async (request, reply) => {
    const config = await configFor(request.params.token);
    return cached(reply).type('application/json').send(config);
  });
  app.get<P>('/array/:token/config.js', async (request, reply) => {
    const script = configScript(await configFor(request.params.token));
    return cached(reply).type('application/javascript').send(script);
  });
  app.get<P>('/array/:token/array.js', async (request, reply) => {
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
