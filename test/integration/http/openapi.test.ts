import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { routesOf } from './routes';

/**
 * Issue 15 item 2: `/api/schema/` is a valid OpenAPI 3.1 document (checked by an OpenAPI validator)
 * that names every registered route with its method, its personal-key scope and its errors.
 */
let s: TestServer;
let doc: OpenApi;

interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  requestBody?: unknown;
  parameters?: { name: string; in: string }[];
  tags?: string[];
}
interface OpenApi {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

/** `/api/projects/:project_id/` as OpenAPI writes it: `/api/projects/{project_id}/`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

beforeAll(async () => {
  s = await startTestServer();
  const res = await fetch(`${s.url}/api/schema/?format=json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as OpenApi;
});
afterAll(() => s.close());

describe('GET /api/schema/', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version);
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('names every registered route with its method (the Swagger UI page and its assets aside)', () => {
    const routes = routesOf(s.app.routeTable).filter((r) => !r.url.startsWith('/api/schema/swagger-ui'));
    expect(routes.length).toBeGreaterThan(40);
    const missing = routes.filter((r) => !doc.paths[openApiPath(r.url)]?.[r.method.toLowerCase()]).map((r) => `${r.method} ${r.url}`);
    expect(missing).toEqual([]);
    // Nothing else: no CORS preflight, no page asset.
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(routes.map((r) => `${r.method} ${openApiPath(r.url)}`).sort());
  });

  it('gives every operation a unique operation id, named as drf-spectacular names them', () => {
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => (op as { operationId?: string }).operationId));
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const op = (path: string, method: string) => (doc.paths[path][method] as { operationId?: string }).operationId;
    expect(op('/api/projects/{project_id}/feature_flags/', 'get')).toBe('feature_flags_list');
    expect(op('/api/projects/{project_id}/feature_flags/{id}/', 'patch')).toBe('feature_flags_partial_update');
    expect(op('/api/projects/{project_id}/experiments/{id}/results/', 'get')).toBe('experiments_results_retrieve');
    expect(op('/api/users/@me/', 'get')).toBe('users_retrieve');
  });

  it("gives each personal-key route its scope, and its 401 / 403 in the error shape", () => {
    const problems: string[] = [];
    for (const r of routesOf(s.app.routeTable)) {
      if (!r.scope) continue;
      const op = doc.paths[openApiPath(r.url)][r.method.toLowerCase()];
      if (JSON.stringify(op.security) !== JSON.stringify([{ PersonalAPIKey: [r.scope] }])) problems.push(`${r.method} ${r.url}: security ${JSON.stringify(op.security)}`);
      for (const status of ['401', '403'])
        if ((op.responses[status]?.content?.['application/json']?.schema as { $ref?: string } | undefined)?.$ref !== '#/components/schemas/Error')
          problems.push(`${r.method} ${r.url}: no ${status} error`);
    }
    expect(problems).toEqual([]);
    expect(doc.components.securitySchemes.PersonalAPIKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.Error).toMatchObject({ type: 'object', required: ['type', 'code', 'detail', 'attr'] });
  });

  it('describes request bodies, query parameters and answers from the zod schemas', () => {
    const create = doc.paths['/api/projects/{project_id}/feature_flags/'].post;
    expect(create.requestBody).toBeDefined();
    expect(JSON.stringify(create.requestBody)).toContain('ensure_experience_continuity');
    const list = doc.paths['/api/projects/{project_id}/feature_flags/'].get;
    expect(list.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(expect.arrayContaining(['path:project_id', 'query:limit', 'query:offset']));
    expect(JSON.stringify(list.responses['200'])).toContain('results');
    expect(JSON.stringify(doc)).not.toContain('Default Response');
    // The SDK endpoints: the project key in the body, documented though they decode their own bodies.
    expect(JSON.stringify(doc.paths['/batch'].post.requestBody)).toContain('api_key');
    expect(JSON.stringify(doc.paths['/flags'].post.requestBody)).toContain('distinct_id');
  });

  it('is YAML by default and by ?format=yaml, JSON by ?format=json or Accept, 404 for another format', async () => {
    const plain = await fetch(`${s.url}/api/schema/`);
    expect(plain.headers.get('content-type')).toMatch(/^application\/vnd\.oai\.openapi(;|$)/);
    expect(parseYaml(await plain.text())).toEqual(doc);
    const yaml = await fetch(`${s.url}/api/schema/?format=yaml`);
    expect(parseYaml(await yaml.text())).toEqual(doc);
    const json = await fetch(`${s.url}/api/schema/?format=json`);
    expect(json.headers.get('content-type')).toMatch(/^application\/vnd\.oai\.openapi\+json/);
    expect((await json.text()).split('\n')[1]).toMatch(/^ {4}"/);
    const accepted = await fetch(`${s.url}/api/schema/`, { headers: { accept: 'application/json' } });
    expect(JSON.parse(await accepted.text())).toEqual(doc);
    const other = await fetch(`${s.url}/api/schema/?format=xml`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ type: 'invalid_request', code: 'not_found', attr: null });
  });

  it('serves the Swagger UI page and its assets from the installed package', async () => {
    const page = await fetch(`${s.url}/api/schema/swagger-ui/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('swagger-ui');
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[a-z]/i);
    const bundle = await fetch(`${s.url}/api/schema/swagger-ui/static/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });
});
