import type { FastifyInstance, FastifyRequest } from 'fastify';
import { malformedRequest } from '../ingest/errors';
import { invalidInput } from './errors';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Query parameters this route reads as lists; any other parameter given twice is a 400. */
    repeatableQuery?: readonly string[];
  }
}

/** Names of the parameters whose percent-encoding did not decode (kept off the enumerable keys). */
const UNDECODABLE = Symbol('undecodable query parameters');

type ParsedQuery = Record<string, string | string[]> & { [UNDECODABLE]?: string[] };

function decode(text: string): string | null {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return null;
  }
}

/**
 * The router's query-string parser. It runs inside the router's lookup, where a throw would escape
 * every handler, so it never throws: a repeated parameter becomes a list and one that does not
 * decode is noted, and `refuseBadQueries` answers both with a 400 once the route is known.
 * The object has no prototype, so `__proto__` or `constructor` are plain parameter names.
 */
export function parseQueryString(raw: string): ParsedQuery {
  const out = Object.create(null) as ParsedQuery;
  if (raw.length === 0) return out;
  for (const pair of raw.split('&')) {
    if (pair.length === 0) continue;
    const eq = pair.indexOf('=');
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    const key = decode(rawKey);
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
    if (key === null || value === null) {
      (out[UNDECODABLE] ??= []).push(key ?? rawKey);
      continue;
    }
    const seen = out[key];
    if (seen === undefined) out[key] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[key] = [seen, value];
  }
  return out;
}

/** Ingestion and flag endpoints (no personal-key scope) answer in the capture error shape. */
function refuse(request: FastifyRequest, detail: string, attr: string) {
  return request.routeOptions.config?.scope === undefined ? malformedRequest(detail) : invalidInput(detail, attr);
}

/**
 * One place for what the parser noted: a parameter given twice (unless the route reads it as a
 * list) or one whose percent-encoding is not UTF-8 is a 400, before any handler reads the query.
 */
export function refuseBadQueries(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request, the flag and capture paths included.
  app.addHook('preValidation', (request, _reply, done) => done(queryProblem(request)));
}

function queryProblem(request: FastifyRequest): Error | undefined {
  const query = request.query as ParsedQuery | undefined;
  if (query === undefined || query === null) return undefined;
  const undecodable = query[UNDECODABLE];
  if (undecodable !== undefined) {
    const name = shown(undecodable[0]);
    return refuse(request, `Query parameter '${name}' is not valid percent-encoded UTF-8.`, name);
  }
  const repeatable = request.routeOptions.config?.repeatableQuery ?? [];
  for (const key in query)
    if (Array.isArray(query[key]) && !repeatable.includes(key)) return refuse(request, `Query parameter '${shown(key)}' may be given only once.`, shown(key));
  return undefined;
}

/** A parameter name as an error names it: bounded, since it comes from the client. */
const shown = (name: string) => (name.length > 100 ? `${name.slice(0, 100)}…` : name);
