import type { FastifyRequest } from 'fastify';
import { linkWith } from './links';

/** A page as the routes' `pageQuery` schema parses it (schema/common.ts). */
export interface Page {
  limit: number;
  offset: number;
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
