import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedBodies, fixedHeaders, fixedQueries } from './inputs';
import { errorShapeProblem, rawExchange } from './raw-request';
import { BOGUS_IDS, expectNoProblems, fillPath, sendHostile, startTarget, type Target } from './target';

// The fixed hostile list, sent to every route the app registers (a new route is covered without
// touching this file): bodies, query strings, headers and path ids. Each request must get a
// non-5xx answer; a refusal has the error shape and appends nothing; /_health stays ok.
let t: Target;
beforeAll(async () => {
  t = await startTarget();
});
afterAll(() => t.s.close());

const takesBody = (method: string) => method !== 'GET' && method !== 'OPTIONS';
// Destructive routes go last, so the real objects exist for every other request.
const ordered = () => [...t.routes].sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
/**
 * The personal key, so every case reaches the management handlers; the public endpoints read the
 * project key from the body (every body carries it). The project key as a Bearer token, no key
 * and a revoked one are the last case below.
 */
const auth = (): Record<string, string> => ({ authorization: `Bearer ${t.keys.personal}` });

describe('every route against the fixed hostile list', () => {
  it('enumerates the registered routes', () => {
    expect(t.routes.length).toBeGreaterThan(60);
    for (const path of ['/capture', '/batch', '/decide', '/flags', '/api/projects/:project_id/feature_flags/:id/'])
      expect(t.routes.some((r) => r.url === path), path).toBe(true);
  });

  it('bodies', async () => {
    const problems: string[] = [];
    const bodies = fixedBodies(t.keys.project);
    for (const route of ordered().filter((r) => takesBody(r.method)))
      for (const c of bodies) {
        const headers: Record<string, string> = { ...auth() };
        if (c.contentType !== undefined) headers['content-type'] = c.contentType;
        if (c.contentEncoding !== undefined) headers['content-encoding'] = c.contentEncoding;
        await sendHostile(t, problems, { method: route.method, path: fillPath(t, route.url), headers, body: c.body });
      }
    expectNoProblems(problems);
  });

  it('query strings', async () => {
    const problems: string[] = [];
    for (const route of ordered())
      for (const c of fixedQueries)
        await sendHostile(t, problems, {
          method: route.method,
          path: `${fillPath(t, route.url)}?${c.query}`,
          headers: { ...auth(), 'content-type': 'application/json' },
          body: takesBody(route.method) ? JSON.stringify({ api_key: t.keys.project }) : undefined,
        });
    expectNoProblems(problems);
  });

  it('headers', async () => {
    const problems: string[] = [];
    for (const route of ordered())
      for (const c of fixedHeaders)
        await sendHostile(t, problems, {
          method: route.method,
          path: `${fillPath(t, route.url)}?limit=1&offset=1`,
          headers: { ...auth(), 'content-type': 'application/json', ...c.headers },
          body: takesBody(route.method) ? JSON.stringify({ api_key: t.keys.project, event: 'e', distinct_id: 'd' }) : '',
        });
    expectNoProblems(problems);
  });

  it('path ids that name nothing', async () => {
    const problems: string[] = [];
    const withParams = ordered().filter((r) => r.url.includes(':'));
    expect(withParams.length).toBeGreaterThan(20);
    for (const [r, route] of withParams.entries())
      for (const k of [0, 5, 10]) {
        const bogus = BOGUS_IDS[(r + k) % BOGUS_IDS.length];
        // One parameter at a time, the others real, so each lookup is reached.
        for (const name of route.url.match(/:(\w+)/g)!.map((m) => m.slice(1)))
          await sendHostile(t, problems, {
            method: route.method,
            path: fillPath(t, route.url, (n) => (n === name ? bogus : undefined)),
            headers: { ...auth(), 'content-type': 'application/json' },
            body: takesBody(route.method) ? '{}' : undefined,
          });
      }
    expectNoProblems(problems);
  });

  it('keys: none, revoked, the project key where a personal key belongs', async () => {
    const problems: string[] = [];
    for (const route of ordered())
      for (const headers of [{}, { authorization: `Bearer ${t.keys.revoked}` }, { authorization: `Bearer ${t.keys.project}` }] as Record<string, string>[]) {
        const res = await sendHostile(t, problems, {
          method: route.method,
          path: fillPath(t, route.url),
          headers: { ...headers, 'content-type': 'application/json' },
          body: takesBody(route.method) ? '{}' : undefined,
        });
        // A CORS preflight (public /api/surveys, /api/early_access_features) carries no key by design;
        // the OpenAPI document and its page are public, as drf-spectacular serves them by default.
        if (route.url.startsWith('/api/') && route.method !== 'OPTIONS' && !route.url.startsWith('/api/schema/')) expect(res.status, `${route.method} ${route.url}`).toBe(401);
      }
    expectNoProblems(problems);
  });

  it('requests the HTTP parser cannot read get the error shape too', async () => {
    const cases: [string, string, number][] = [
      ['garbage request line', 'NOT HTTP AT ALL\r\n\r\n', 400],
      ['header without a colon', 'GET /_health HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n', 400],
      ['control character in a header', 'GET /_health HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n', 400],
      ['bad Content-Length', 'POST /capture HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n', 400],
      ['headers past the size limit', `GET /_health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ];
    for (const [name, bytes, status] of cases) {
      const before = await t.s.runtime.log.head();
      const answer = await rawExchange(t.s.url, bytes);
      expect(answer.split('\r\n')[0], name).toBe(`HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : 'Request Header Fields Too Large'}`);
      expect(errorShapeProblem(answer.slice(answer.indexOf('\r\n\r\n') + 4)), name).toBeNull();
      expect(await t.s.runtime.log.head(), name).toBe(before);
    }
  });
});
