import Fastify, { type FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notFoundError, registerErrorHandling } from '../../../src/http/errors';
import { jsonObject, raise } from '../../../src/http/schema/common';
import { serializerCompiler, validatorCompiler } from '../../../src/http/schema/provider';

/**
 * The zod type provider's two halves over real HTTP: a request part that fails its schema answers
 * in the spec's error shape naming the field (as the handlers' own parsing did), a schema may raise
 * the route's own error, and an answer that does not fit its response schema is a 500 in the error
 * shape, never a half-written body.
 */
let app: FastifyInstance;
let url: string;

const routes: FastifyPluginAsyncZod = async (r) => {
  r.post(
    '/things/:id/',
    {
      schema: {
        params: z.object({ id: z.string().regex(/^\d+$/, 'Not a number.') }),
        querystring: z.object({ cursor: z.string().optional().transform((v, ctx) => (v === 'bad' ? raise(ctx, notFoundError('Invalid cursor')) : v)) }),
        body: jsonObject({ filters: z.object({ groups: z.array(z.object({ rollout_percentage: z.number() })) }).optional() }),
        response: { 200: z.object({ received: z.record(z.string(), z.unknown()) }) },
      },
    },
    async (request) => ({ received: request.body }),
  );
  r.get('/broken/', { schema: { response: { 200: z.object({ count: z.number() }) } } }, async () => ({ count: 'many' }) as unknown as { count: number });
};

beforeAll(async () => {
  app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  await app.register(routes);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => app.close());

const post = async (path: string, body?: string) => {
  const res = await fetch(url + path, { method: 'POST', body, headers: body === undefined ? {} : { 'content-type': 'application/json' } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('zod route schemas', () => {
  it('take a valid request, and an absent body as {}', async () => {
    expect(await post('/things/1/', JSON.stringify({ filters: { groups: [{ rollout_percentage: 5 }] } }))).toEqual({
      status: 200,
      body: { received: { filters: { groups: [{ rollout_percentage: 5 }] } } },
    });
    expect(await post('/things/1/')).toEqual({ status: 200, body: { received: {} } });
  });

  it('answer a failing part with a 400 validation_error naming the field by its path', async () => {
    const nested = await post('/things/1/', JSON.stringify({ filters: { groups: [{ rollout_percentage: 'x' }] } }));
    expect(nested).toMatchObject({ status: 400, body: { type: 'validation_error', code: 'invalid_input', attr: 'filters.groups.0.rollout_percentage' } });
    expect(Object.keys(nested.body).sort()).toEqual(['attr', 'code', 'detail', 'type']);
    expect(await post('/things/abc/', '{}')).toEqual({ status: 400, body: { type: 'validation_error', code: 'invalid_input', detail: 'Not a number.', attr: 'id' } });
    expect(await post('/things/1/', '[1]')).toEqual({ status: 400, body: { type: 'validation_error', code: 'invalid_input', detail: 'Expected a JSON object.', attr: null } });
  });

  it("let a schema raise the route's own error", async () => {
    expect(await post('/things/1/?cursor=bad', '{}')).toEqual({ status: 404, body: { type: 'invalid_request', code: 'not_found', detail: 'Invalid cursor', attr: null } });
  });

  it('answer a 500 in the error shape when an answer does not fit its response schema', async () => {
    const res = await fetch(`${url}/broken/`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null });
  });
});
