import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { bodyArb, headersArb, queryArb, type BodyCase } from './inputs';
import { BOGUS_IDS, expectNoProblems, fillPath, sendHostile, startTarget, type Target } from './target';

// Property-based: generated bodies, query strings and headers against routes drawn from every
// route the app registers, with the personal key, the project key or none. The same invariants as
// the sweep (no 5xx, error shape, nothing appended on refusal, /_health ok). Problems are collected
// rather than shrunk (the server keeps state between runs); the seed in the message replays a run.
let t: Target;
beforeAll(async () => {
  t = await startTarget();
});
afterAll(() => t.s.close());

const SEED = Number(process.env.HOSTILE_SEED ?? Date.now() % 2 ** 31);
const RUNS = 100;

const takesBody = (method: string) => method !== 'GET' && method !== 'OPTIONS';

interface Drawn {
  routeIndex: number;
  bogus: string | null;
  key: 'personal' | 'project' | 'none';
}

const drawn = (): fc.Arbitrary<Drawn> =>
  fc.record({
    routeIndex: fc.nat({ max: t.routes.length - 1 }),
    // Half the time every path parameter is real, so the handlers behind the lookups run.
    bogus: fc.option(fc.constantFrom(...BOGUS_IDS), { freq: 2 }),
    // Mostly the personal key, which gets past authentication into the handlers.
    key: fc.oneof({ weight: 4, arbitrary: fc.constant('personal' as const) }, { weight: 1, arbitrary: fc.constantFrom('project' as const, 'none' as const) }),
  });

function send(problems: string[], d: Drawn, extra: { query?: string; headers?: Record<string, string>; body?: BodyCase }) {
  const route = t.routes[d.routeIndex];
  const headers: Record<string, string> = {};
  if (d.key !== 'none') headers.authorization = `Bearer ${d.key === 'personal' ? t.keys.personal : t.keys.project}`;
  const body = extra.body;
  if (body?.contentType) headers['content-type'] = body.contentType;
  if (body?.contentEncoding) headers['content-encoding'] = body.contentEncoding;
  Object.assign(headers, extra.headers);
  const path = fillPath(t, route.url, d.bogus === null ? undefined : () => d.bogus!);
  return sendHostile(t, problems, {
    method: route.method,
    path: extra.query ? `${path}?${extra.query}` : path,
    headers,
    body: takesBody(route.method) ? (body?.body ?? '') : undefined,
  });
}

async function check(name: string, arb: fc.Arbitrary<(problems: string[]) => Promise<unknown>>) {
  const problems: string[] = [];
  await fc.assert(
    fc.asyncProperty(arb, async (run) => {
      await run(problems);
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  if (problems.length) problems.unshift(`${name}: replay with HOSTILE_SEED=${SEED}`);
  expectNoProblems(problems);
}

describe('generated hostile input to every route', () => {
  it('bodies: random JSON, wrong types, lone surrogates, deep-ish nesting, bad bytes, gzip, content types', async () => {
    const indexes = (keep: (url: string, method: string) => boolean) => t.routes.flatMap((r, i) => (keep(r.url, r.method) ? [i] : []));
    const bodyRoutes = indexes((_url, method) => takesBody(method));
    // Half the bodies go to the public endpoints, where they reach normalisation and the append.
    const publicRoutes = indexes((url, method) => method === 'POST' && !url.startsWith('/api/'));
    await check(
      'bodies',
      fc.tuple(drawn(), fc.oneof(fc.constantFrom(...bodyRoutes), fc.constantFrom(...publicRoutes)), bodyArb(t.keys.project)).map(([d, routeIndex, body]) => (problems: string[]) => send(problems, { ...d, routeIndex }, { body })),
    );
  });

  it('query strings: repeated names, undecodable escapes, huge and exponent numbers', async () => {
    await check('queries', fc.tuple(drawn(), queryArb).map(([d, query]) => (problems: string[]) => send(problems, d, { query })));
  });

  it('headers: Host, X-Forwarded-*, Authorization, Content-Encoding, Origin', async () => {
    await check(
      'headers',
      fc.tuple(drawn(), headersArb([t.keys.personal, t.keys.project, t.keys.revoked])).map(([d, headers]) => (problems: string[]) =>
        send(problems, d, { headers, query: 'limit=1&offset=1' }),
      ),
    );
  });

  it('all at once', async () => {
    await check(
      'combined',
      fc
        .tuple(drawn(), queryArb, headersArb([t.keys.personal, t.keys.project]), bodyArb(t.keys.project))
        .map(([d, query, headers, body]) => (problems: string[]) => send(problems, d, { query, headers, body })),
    );
  });
});
