import type { FastifyRequest } from 'fastify';
import { invalidInput } from './errors';
import { linkWith } from './links';

export interface Page {
  limit: number;
  offset: number;
}

/**
 * Plain decimal digits only (no `1e3`, sign or spaces), and small enough to be exact: a value
 * past 2^53 would reach the store as a float it cannot bind as an integer.
 */
function nonNegativeInt(value: unknown, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw invalidInput(`A valid non-negative integer is required for '${name}'.`, name);
  return n;
}

/** `limit` (default 100, at most 1000) and `offset` from the query string; bad values are a 400. */
export function parsePage(query: unknown, options: { defaultLimit?: number; maxLimit?: number } = {}): Page {
  const q = (query ?? {}) as Record<string, unknown>;
  const maxLimit = options.maxLimit ?? 1000;
  const limit = nonNegativeInt(q.limit, 'limit') ?? options.defaultLimit ?? 100;
  if (limit < 1) throw invalidInput(`'limit' must be at least 1.`, 'limit');
  if (limit > maxLimit) throw invalidInput(`'limit' must be at most ${maxLimit}.`, 'limit');
  return { limit, offset: nonNegativeInt(q.offset, 'offset') ?? 0 };
}

const pageUrl = (request: FastifyRequest, limit: number, offset: number): string =>
  linkWith(request, { limit: String(limit), offset: String(offset) });

/** The offset envelope: total count, absolute next/previous URLs, the page's results. */
export function pageEnvelope<T>(request: FastifyRequest, page: Page, count: number, results: T[]) {
  const { limit, offset } = page;
  return {
    count,
    next: offset + limit < count ? pageUrl(request, limit, offset + limit) : null,
    previous: offset > 0 ? pageUrl(request, limit, Math.max(0, offset - limit)) : null,
    results,
  };
}
