import { existsSync, readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFoundError } from './errors';
import { ErrorBody } from './schema/common';
import { errorResponses, operationIdOf, tagOf } from './schema/operations';

const SchemaQuery = z.object({ format: z.enum(['json', 'yaml']).optional().meta({ description: 'Default yaml.' }) });
const SchemaDocument = z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) });

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * What only the OpenAPI document shows: request and response shapes of routes that decode their
     * own bodies (the SDK endpoints) or answer with pre-serialised bytes, where a validating or
     * serialising schema would stand in the way.
     */
    docs?: { body?: z.ZodType; querystring?: z.ZodType; response?: Record<number, unknown>; consumes?: string[] };
  }
}

export const SCHEMA_PATH = '/api/schema/';
export const SWAGGER_UI_PREFIX = '/api/schema/swagger-ui';

const DESCRIPTION = `PostHog-compatible analytics API.

Management endpoints (\`/api/projects/…\`, \`/api/organizations/…\`, \`/api/users/@me/\`) take a personal
API key as \`Authorization: Bearer phx_…\`; each operation lists the scope it needs (a \`:write\` scope
also grants its \`:read\`). The SDK endpoints (\`/e/\`, \`/batch/\`, \`/i/v0/e\`, \`/capture\`, \`/decide\`,
\`/flags\`, \`/s/\`) take the project API key (\`phc_…\`) in the body as \`api_key\` or \`token\`, as JSON,
gzip, base64 or form bodies; \`/api/surveys\` and \`/api/early_access_features\` take it as \`?token=\`.
Every error answers \`{type, code, detail, attr}\`.`;

const SDK_PATHS = /^\/(e|capture|i\/v0\/e|track|engage|batch|decide|flags|s)$|^\/api\/(surveys|early_access_features)$/;

/**
 * Registers the OpenAPI document (generated from the routes' zod schemas), served at
 * `/api/schema/` as PostHog serves it (compat §13: YAML by default, `?format=json|yaml` or by
 * Accept), and the Swagger UI page at `/api/schema/swagger-ui/` from the installed package's own
 * assets. Like drf-spectacular's default, both are public: the document holds no data.
 * Must be registered before the routes, so it sees every one of them.
 */
export async function registerOpenApi(app: FastifyInstance, version = serviceVersion()): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Eventful analytics API', version, description: DESCRIPTION },
      components: {
        securitySchemes: {
          PersonalAPIKey: { type: 'http', scheme: 'bearer', description: 'A personal API key (`phx_…`); operations list the scopes they need.' },
          ProjectAPIKeyQuery: { type: 'apiKey', in: 'query', name: 'token', description: 'The public project API key (`phc_…`).' },
        },
      },
    },
    transform: (document) => {
      const { schema, url, route } = document;
      const config = (route.config ?? {}) as FastifyContextConfig;
      // CORS preflights are the browser's business, not an operation of the API.
      if ((schema as { hide?: boolean } | undefined)?.hide || route.method === 'OPTIONS') return { schema: { hide: true } as FastifySchema, url };
      const docs = config.docs ?? {};
      const merged: Record<string, unknown> = { ...(schema ?? {}) };
      if (docs.body) merged.body = docs.body;
      if (docs.querystring) merged.querystring = docs.querystring;
      if (docs.response) merged.response = { ...(merged.response as object), ...docs.response };
      const transformed = jsonSchemaTransform({ ...document, schema: merged as FastifySchema } as Parameters<typeof jsonSchemaTransform>[0]);
      const out = { ...(transformed.schema as Record<string, unknown>) };
      const isPublic = SDK_PATHS.test(url);
      if (docs.consumes) out.consumes = docs.consumes;
      out.tags ??= [tagOf(url)];
      out.operationId ??= operationIdOf(String(route.method), url);
      out.security = config.scope
        ? [{ PersonalAPIKey: [config.scope] }]
        : url.startsWith('/api/surveys') || url.startsWith('/api/early_access_features')
          ? [{ ProjectAPIKeyQuery: [] }]
          : [];
      // Error responses are added after the zod conversion: they point at the one Error component.
      (out as { 'x-errors'?: unknown })['x-errors'] = errorResponses(url, config.scope, !!(merged.body || merged.querystring), isPublic);
      return { schema: out as FastifySchema, url };
    },
    transformObject: (documentObject) => {
      const doc = jsonSchemaTransformObject(documentObject) as { paths?: Record<string, Record<string, Record<string, unknown>>>; components?: { schemas?: Record<string, unknown> } };
      for (const path of Object.values(doc.paths ?? {}))
        for (const operation of Object.values(path)) {
          const errors = operation['x-errors'] as Record<string, unknown> | undefined;
          if (!errors) continue;
          delete operation['x-errors'];
          const responses = { ...(operation.responses as Record<string, { description?: string }>), ...errors } as Record<string, { description?: string }>;
          // The generator's placeholder description becomes the status's own name.
          for (const [status, response] of Object.entries(responses))
            if (response.description === 'Default Response') response.description = STATUS_CODES[Number(status)] ?? 'Answer';
          operation.responses = responses;
        }
      return doc as ReturnType<typeof jsonSchemaTransformObject>;
    },
  });

  app.get(
    SCHEMA_PATH,
    {
      config: { docs: { querystring: SchemaQuery, response: { 200: SchemaDocument, 404: ErrorBody } } },
      schema: { summary: 'This OpenAPI 3.1 document (YAML by default).', tags: ['schema'] },
    },
    serveDocument(app),
  );

  await app.register(fastifySwaggerUi, {
    routePrefix: SWAGGER_UI_PREFIX,
    uiConfig: { deepLinking: true, docExpansion: 'list' },
    staticCSP: true,
  });
}

/** The service's own version, from the nearest package.json above this file (source or a compiled build). */
function serviceVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0';
    if (dirname(dir) === dir) return '0.0.0';
  }
}

/**
 * drf-spectacular's negotiation: `?format=json|yaml` wins; else the Accept header (JSON when it asks
 * for JSON); else YAML. An unknown format is a 404, as DRF answers it.
 */
function serveDocument(app: FastifyInstance) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const format = (request.query as Record<string, string | undefined>).format;
    const accept = request.headers.accept ?? '';
    const json = format === 'json' || (format === undefined && /application\/(vnd\.oai\.openapi\+)?json/.test(accept) && !/yaml|vnd\.oai\.openapi(?!\+)/.test(accept));
    if (format !== undefined && format !== 'json' && format !== 'yaml') return reply.status(404).send(notFoundError().body);
    if (json) return reply.type('application/vnd.oai.openapi+json; charset=utf-8').send(JSON.stringify(app.swagger(), null, 4));
    return reply.type('application/vnd.oai.openapi; charset=utf-8').send(app.swagger({ yaml: true }));
  };
}
